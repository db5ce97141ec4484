// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#include "CSDBus.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/eventfd.h>

static const ocl_bus_service *service_of(void *userdata) { return (const ocl_bus_service *)userdata; }

int ocl_bus_method(sd_bus_message *call, void *userdata, sd_bus_error *error) {
    (void)error;
    const ocl_bus_service *service = service_of(userdata);
    return service->method(service->context, call, sd_bus_message_get_path(call),
                           sd_bus_message_get_interface(call), sd_bus_message_get_member(call));
}

static const char *current_sender(sd_bus *bus) {
    sd_bus_message *current = sd_bus_get_current_message(bus);
    return current ? sd_bus_message_get_sender(current) : NULL;
}

int ocl_bus_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    const ocl_bus_service *service = service_of(userdata);
    return service->get(service->context, reply, path, interface, property, current_sender(bus), error);
}

int ocl_bus_set(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *value, void *userdata, sd_bus_error *error) {
    const ocl_bus_service *service = service_of(userdata);
    return service->set(service->context, value, path, interface, property, current_sender(bus), error);
}

static int on_name_owner_changed(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read_basic(message, 's', &name) < 0 || sd_bus_message_read_basic(message, 's', &old_owner) < 0 ||
        sd_bus_message_read_basic(message, 's', &new_owner) < 0)
        return 0;
    // A unique name that lost its owner: that connection is gone.
    const ocl_bus_service *service = service_of(userdata);
    if (name[0] == ':' && new_owner[0] == '\0') service->gone(service->context, name);
    // A unique name that gained one: a connection joined.
    if (name[0] == ':' && old_owner[0] == '\0' && new_owner[0] != '\0' && service->arrived)
        service->arrived(service->context, name);
    return 0;
}

int ocl_bus_list_connections(sd_bus *bus, ocl_bus_service *service) {
    sd_bus_message *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "ListNames", &error, &reply, "");
    sd_bus_error_free(&error);
    if (r < 0) return r;
    r = sd_bus_message_enter_container(reply, 'a', "s");
    const char *name = NULL;
    while (r >= 0 && (r = sd_bus_message_read_basic(reply, 's', &name)) > 0) {
        if (name[0] == ':' && service->arrived) service->arrived(service->context, name);
    }
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

int ocl_bus_open_system(sd_bus **bus, ocl_bus_service *service, const char **step) {
    *bus = NULL;
    int r = sd_bus_open_system(bus);
    if (r < 0) {
        *step = "connecting to the system bus";
        return r;
    }
    *step = "watching connections leave the bus";
    r = sd_bus_match_signal(*bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                            "NameOwnerChanged", on_name_owner_changed, service);
    if (r < 0) *bus = sd_bus_flush_close_unref(*bus);
    return r;
}

int ocl_bus_request_name(sd_bus *bus, const char *name) { return sd_bus_request_name(bus, name, 0); }

int ocl_bus_add_object(sd_bus *bus, sd_bus_slot **slot, const char *path, const char *interface,
                       const sd_bus_vtable *vtable, ocl_bus_service *service) {
    return sd_bus_add_object_vtable(bus, slot, path, interface, vtable, service);
}

void ocl_bus_request_stop(int *stop, int wake) {
    __atomic_store_n(stop, 1, __ATOMIC_RELEASE);
    ocl_wake(wake);
}

int ocl_wake_fd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

void ocl_wake(int fd) { (void)!eventfd_write(fd, 1); }

int ocl_bus_run(sd_bus *bus, int wake, int *stop, const ocl_bus_service *service) {
    while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
        int r = sd_bus_process(bus, NULL);
        if (r < 0) return r;
        // Queued work (an engine's update) runs between any two messages: a peer that floods the
        // bus delays the others' locations by one message at most.
        uint64_t count;
        if (read(wake, &count, sizeof count) == (ssize_t)sizeof count) service->wake(service->context);
        if (r > 0) continue;
        int events = sd_bus_get_events(bus);
        if (events < 0) return events;
        uint64_t timeout = UINT64_MAX;
        r = sd_bus_get_timeout(bus, &timeout);
        if (r < 0) return r;
        int milliseconds = -1;
        if (timeout != UINT64_MAX) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            uint64_t now_usec = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
            milliseconds = timeout > now_usec ? (int)((timeout - now_usec + 999) / 1000) : 0;
        }
        struct pollfd fds[2] = {{.fd = sd_bus_get_fd(bus), .events = (short)events}, {.fd = wake, .events = POLLIN}};
        r = poll(fds, 2, milliseconds);
        if (r < 0 && errno != EINTR) return -errno;
    }
    return 0;
}

int ocl_reply_empty(sd_bus_message *call) { return sd_bus_reply_method_return(call, ""); }

int ocl_reply_object_path(sd_bus_message *call, const char *path) {
    return sd_bus_reply_method_return(call, "o", path);
}

int ocl_reply_error(sd_bus_message *call, const char *name, const char *message) {
    return sd_bus_reply_method_errorf(call, name, "%s", message);
}

int ocl_bus_send_to(sd_bus *bus, sd_bus_message *message, const char *destination) {
    int r = destination ? sd_bus_message_set_destination(message, destination) : 0;
    if (r >= 0) r = sd_bus_send(bus, message, NULL);
    sd_bus_message_unref(message);
    return r;
}

// An asynchronous call's reply, for its service, with the token it was made with.
typedef struct {
    ocl_bus_service *service;
    uint64_t token;
} pending_call;

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)error;
    const pending_call *pending = userdata;
    pending->service->replied(pending->service->context, pending->token, reply);
    return 0;
}

int ocl_bus_call_async(sd_bus *bus, sd_bus_message *call, ocl_bus_service *service, uint64_t token,
                       uint64_t timeout_usec) {
    pending_call *pending = malloc(sizeof *pending);
    if (!pending) {
        sd_bus_message_unref(call);
        return -ENOMEM;
    }
    *pending = (pending_call){.service = service, .token = token};
    sd_bus_slot *slot = NULL;
    int r = sd_bus_call_async(bus, &slot, call, on_reply, pending, timeout_usec);
    sd_bus_message_unref(call);
    if (r < 0) {
        free(pending);
        return r;
    }
    // The slot frees the pending call when it goes: after the reply, or with the bus.
    sd_bus_slot_set_destroy_callback(slot, free);
    sd_bus_slot_set_floating(slot, 1);
    sd_bus_slot_unref(slot);
    return 0;
}

int ocl_peer_credentials(sd_bus *bus, const char *name, uint32_t *uid, uint32_t *pid, int *pidfd) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    bool have_uid = false, have_pid = false;
    *pidfd = -1;
    int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetConnectionCredentials", &error, &reply, "s", name);
    sd_bus_error_free(&error);
    if (r < 0) return r;
    r = sd_bus_message_enter_container(reply, 'a', "{sv}");
    while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
        const char *key = NULL;
        r = sd_bus_message_read_basic(reply, 's', &key);
        if (r < 0) break;
        if (strcmp(key, "UnixUserID") == 0 || strcmp(key, "ProcessID") == 0) {
            uint32_t value = 0;
            r = sd_bus_message_read(reply, "v", "u", &value);
            if (r < 0) break;
            if (key[0] == 'U') {
                *uid = value;
                have_uid = true;
            } else {
                *pid = value;
                have_pid = true;
            }
        } else if (strcmp(key, "ProcessFD") == 0) {
            int fd = -1;
            r = sd_bus_message_read(reply, "v", "h", &fd);
            if (r < 0) break;
            if (*pidfd < 0 && fd >= 0) *pidfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        } else {
            r = sd_bus_message_skip(reply, "v");
            if (r < 0) break;
        }
        r = sd_bus_message_exit_container(reply);
    }
    sd_bus_message_unref(reply);
    if (r < 0) {
        if (*pidfd >= 0) close(*pidfd);
        *pidfd = -1;
        return r;
    }
    if (!have_uid || !have_pid) {
        if (*pidfd >= 0) close(*pidfd);
        *pidfd = -1;
        return -ENODATA;
    }
    return 0;
}

int ocl_read_string(sd_bus_message *message, const char **value) {
    return sd_bus_message_read_basic(message, 's', value);
}

int ocl_read_uint32(sd_bus_message *message, uint32_t *value) {
    return sd_bus_message_read_basic(message, 'u', value);
}

int ocl_read_string_argument(sd_bus_message *message, char type, const char **value) {
    return sd_bus_message_read_basic(message, type, value);
}

int ocl_append_bool(sd_bus_message *reply, bool value) {
    int flag = value;
    return sd_bus_message_append_basic(reply, 'b', &flag);
}

int ocl_append_uint32(sd_bus_message *reply, uint32_t value) { return sd_bus_message_append_basic(reply, 'u', &value); }

int ocl_append_double(sd_bus_message *reply, double value) { return sd_bus_message_append_basic(reply, 'd', &value); }

int ocl_append_string(sd_bus_message *reply, const char *value) {
    return sd_bus_message_append_basic(reply, 's', value);
}

int ocl_append_object_path(sd_bus_message *reply, const char *value) {
    return sd_bus_message_append_basic(reply, 'o', value);
}

int ocl_append_timestamp(sd_bus_message *reply, uint64_t seconds, uint64_t microseconds) {
    return sd_bus_message_append(reply, "(tt)", seconds, microseconds);
}
