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
#include <sys/eventfd.h>

#define MANAGER_PATH "/org/freedesktop/GeoClue2/Manager"
#define MANAGER_INTERFACE "org.freedesktop.GeoClue2.Manager"
#define CLIENT_INTERFACE "org.freedesktop.GeoClue2.Client"
#define LOCATION_INTERFACE "org.freedesktop.GeoClue2.Location"
#define AGENT_INTERFACE "org.freedesktop.GeoClue2.Agent"
#define AGENT_PATH "/org/freedesktop/GeoClue2/Agent"

// One service per process: the bus's callbacks find its handlers here.
static const ocl_geoclue_handlers *service_handlers;
static void *service_context;

static int on_method(sd_bus_message *call, void *context, sd_bus_error *error) {
    (void)error;
    return service_handlers->method(context, call, sd_bus_message_get_path(call),
                                    sd_bus_message_get_interface(call), sd_bus_message_get_member(call));
}

static const char *current_sender(sd_bus *bus) {
    sd_bus_message *current = sd_bus_get_current_message(bus);
    return current ? sd_bus_message_get_sender(current) : NULL;
}

static int on_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                  sd_bus_message *reply, void *context, sd_bus_error *error) {
    return service_handlers->get(context, reply, path, interface, property, current_sender(bus), error);
}

static int on_set(sd_bus *bus, const char *path, const char *interface, const char *property,
                  sd_bus_message *value, void *context, sd_bus_error *error) {
    return service_handlers->set(context, value, path, interface, property, current_sender(bus), error);
}

#define CALL SD_BUS_VTABLE_UNPRIVILEGED

static const sd_bus_vtable manager_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("InUse", "b", on_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AvailableAccuracyLevel", "u", on_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD_WITH_NAMES("GetClient", "", , "o", SD_BUS_PARAM(client), on_method, CALL),
    SD_BUS_METHOD_WITH_NAMES("CreateClient", "", , "o", SD_BUS_PARAM(client), on_method, CALL),
    SD_BUS_METHOD_WITH_NAMES("DeleteClient", "o", SD_BUS_PARAM(client), "", , on_method, CALL),
    SD_BUS_METHOD_WITH_NAMES("AddAgent", "s", SD_BUS_PARAM(id), "", , on_method, CALL),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable client_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Location", "o", on_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_WRITABLE_PROPERTY("DistanceThreshold", "u", on_get, on_set, 0,
                             SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | CALL),
    SD_BUS_WRITABLE_PROPERTY("TimeThreshold", "u", on_get, on_set, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | CALL),
    SD_BUS_WRITABLE_PROPERTY("DesktopId", "s", on_get, on_set, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | CALL),
    SD_BUS_WRITABLE_PROPERTY("RequestedAccuracyLevel", "u", on_get, on_set, 0,
                             SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | CALL),
    SD_BUS_PROPERTY("Active", "b", on_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD("Start", "", "", on_method, CALL),
    SD_BUS_METHOD("Stop", "", "", on_method, CALL),
    SD_BUS_SIGNAL_WITH_NAMES("LocationUpdated", "oo", SD_BUS_PARAM(old) SD_BUS_PARAM(new), 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable location_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Latitude", "d", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Longitude", "d", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Accuracy", "d", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Altitude", "d", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Speed", "d", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Heading", "d", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Description", "s", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Timestamp", "(tt)", on_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

static int on_name_owner_changed(sd_bus_message *message, void *context, sd_bus_error *error) {
    (void)error;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read_basic(message, 's', &name) < 0 || sd_bus_message_read_basic(message, 's', &old_owner) < 0 ||
        sd_bus_message_read_basic(message, 's', &new_owner) < 0)
        return 0;
    // A unique name that lost its owner: that connection is gone.
    if (name[0] == ':' && new_owner[0] == '\0') service_handlers->gone(context, name);
    return 0;
}

int ocl_geoclue_open(sd_bus **bus, const ocl_geoclue_handlers *handlers, void *context, const char **step) {
    service_handlers = handlers;
    service_context = context;
    *bus = NULL;
    int r = sd_bus_open_system(bus);
    if (r < 0) {
        *step = "connecting to the system bus";
        return r;
    }
    *step = "adding the Manager object";
    r = sd_bus_add_object_vtable(*bus, NULL, MANAGER_PATH, MANAGER_INTERFACE, manager_vtable, context);
    if (r < 0) goto failed;
    *step = "watching connections leave the bus";
    r = sd_bus_match_signal(*bus, NULL, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                            "NameOwnerChanged", on_name_owner_changed, context);
    if (r < 0) goto failed;
    *step = "owning the name org.freedesktop.GeoClue2";
    r = sd_bus_request_name(*bus, "org.freedesktop.GeoClue2", 0);
    if (r < 0) goto failed;
    return 0;
failed:
    *bus = sd_bus_flush_close_unref(*bus);
    return r;
}

int ocl_geoclue_add_client(sd_bus *bus, sd_bus_slot **slot, const char *path, void *context) {
    return sd_bus_add_object_vtable(bus, slot, path, CLIENT_INTERFACE, client_vtable, context);
}

int ocl_geoclue_add_location(sd_bus *bus, sd_bus_slot **slot, const char *path, void *context) {
    return sd_bus_add_object_vtable(bus, slot, path, LOCATION_INTERFACE, location_vtable, context);
}

void ocl_geoclue_request_stop(int *stop, int wake) {
    __atomic_store_n(stop, 1, __ATOMIC_RELEASE);
    ocl_wake(wake);
}

int ocl_wake_fd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

void ocl_wake(int fd) { (void)!eventfd_write(fd, 1); }

int ocl_geoclue_run(sd_bus *bus, int wake, int *stop, const ocl_geoclue_handlers *handlers, void *context) {
    while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
        int r = sd_bus_process(bus, NULL);
        if (r < 0) return r;
        // Queued work (an engine's update) runs between any two messages: a peer that floods the
        // bus delays the others' locations by one message at most.
        uint64_t count;
        if (read(wake, &count, sizeof count) == (ssize_t)sizeof count) handlers->wake(context);
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

// A signal for one connection: nobody else on the bus learns of it.
static int send_to(sd_bus *bus, sd_bus_message *signal, const char *destination) {
    int r = destination ? sd_bus_message_set_destination(signal, destination) : 0;
    if (r >= 0) r = sd_bus_send(bus, signal, NULL);
    sd_bus_message_unref(signal);
    return r;
}

int ocl_emit_location_updated(sd_bus *bus, const char *destination, const char *path, const char *old_path,
                              const char *new_path) {
    sd_bus_message *signal = NULL;
    int r = sd_bus_message_new_signal(bus, &signal, path, CLIENT_INTERFACE, "LocationUpdated");
    if (r < 0) return r;
    r = sd_bus_message_append(signal, "oo", old_path, new_path);
    if (r < 0) {
        sd_bus_message_unref(signal);
        return r;
    }
    return send_to(bus, signal, destination);
}

int ocl_emit_client_changed(sd_bus *bus, const char *destination, const char *path, bool active,
                            const char *location) {
    sd_bus_message *signal = NULL;
    int r = sd_bus_message_new_signal(bus, &signal, path, "org.freedesktop.DBus.Properties", "PropertiesChanged");
    if (r < 0) return r;
    r = sd_bus_message_append(signal, "sa{sv}as", CLIENT_INTERFACE, 2, "Active", "b", (int)active, "Location", "o",
                              location, 0);
    if (r < 0) {
        sd_bus_message_unref(signal);
        return r;
    }
    return send_to(bus, signal, destination);
}

int ocl_emit_in_use(sd_bus *bus, bool in_use) {
    sd_bus_message *signal = NULL;
    int r = sd_bus_message_new_signal(bus, &signal, MANAGER_PATH, "org.freedesktop.DBus.Properties",
                                      "PropertiesChanged");
    if (r < 0) return r;
    r = sd_bus_message_append(signal, "sa{sv}as", MANAGER_INTERFACE, 1, "InUse", "b", (int)in_use, 0);
    if (r < 0) {
        sd_bus_message_unref(signal);
        return r;
    }
    return send_to(bus, signal, NULL);
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

static int on_authorized(sd_bus_message *reply, void *context, sd_bus_error *error) {
    (void)error;
    uint64_t token = (uint64_t)(uintptr_t)context;
    int authorized = 0;
    uint32_t level = 0;
    bool failed = sd_bus_message_is_method_error(reply, NULL) ||
                  sd_bus_message_read(reply, "bu", &authorized, &level) < 0;
    service_handlers->authorized(service_context, token, failed, authorized != 0, level);
    return 0;
}

int ocl_agent_authorize(sd_bus *bus, const char *destination, const char *desktop_id, uint32_t level,
                        uint64_t token, uint64_t timeout_usec) {
    sd_bus_message *call = NULL;
    int r = sd_bus_message_new_method_call(bus, &call, destination, AGENT_PATH, AGENT_INTERFACE, "AuthorizeApp");
    if (r < 0) return r;
    r = sd_bus_message_append(call, "su", desktop_id, level);
    if (r >= 0) r = sd_bus_call_async(bus, NULL, call, on_authorized, (void *)(uintptr_t)token, timeout_usec);
    sd_bus_message_unref(call);
    return r;
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
