// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// sd-bus (libsystemd) for gpslocd's D-Bus services: a bus connection served on a thread of its
// own, and the few calls whose sd-bus form is variadic or a macro, which Swift cannot make. It
// knows no service's interfaces (each service's vtables are its own target's) and keeps no
// state of its own: every callback finds its service through the `ocl_bus_service` it was given,
// so that any number of services share it. Every decision is the Swift side's.

#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/// What the bus asks of one service; every call happens on the thread that runs its bus. The
/// service's Swift side makes it and keeps it for as long as its bus lives.
typedef struct {
    /// A method call on one of the service's objects. Replies (now or later) with
    /// `ocl_reply_*`; returns 1, or a negative errno to have sd-bus reply with that error.
    int (*method)(void *context, sd_bus_message *call, const char *path, const char *interface,
                  const char *member);
    /// A property read by `sender`: appends its value to `reply`, or sets `error`.
    int (*get)(void *context, sd_bus_message *reply, const char *path, const char *interface,
               const char *property, const char *sender, sd_bus_error *error);
    /// A property written by `sender`: reads the value from `value`, or sets `error`.
    int (*set)(void *context, sd_bus_message *value, const char *path, const char *interface,
               const char *property, const char *sender, sd_bus_error *error);
    /// A connection left the bus.
    void (*gone)(void *context, const char *name);
    /// A connection joined the bus (its unique name), or was on it when
    /// `ocl_bus_list_connections` asked.
    void (*arrived)(void *context, const char *name);
    /// The reply to the call `ocl_bus_call_async` made with `token` (an error reply included).
    void (*replied)(void *context, uint64_t token, sd_bus_message *reply);
    /// The bus thread was woken to run queued work.
    void (*wake)(void *context);
    /// The service's Swift side, handed back to each callback.
    void *context;
} ocl_bus_service;

/// The callbacks a service's vtable names (`SD_BUS_METHOD(…, ocl_bus_method, …)`,
/// `SD_BUS_PROPERTY(…, ocl_bus_get, …)`), with the object's userdata its `ocl_bus_service`.
int ocl_bus_method(sd_bus_message *call, void *service, sd_bus_error *error);
int ocl_bus_get(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *reply, void *service, sd_bus_error *error);
int ocl_bus_set(sd_bus *bus, const char *path, const char *interface, const char *property,
                sd_bus_message *value, void *service, sd_bus_error *error);

/// Opens the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set) and watches connections leave it
/// (`service`'s `gone`). Returns a negative errno on failure, with `*step` naming what failed.
int ocl_bus_open_system(sd_bus **bus, ocl_bus_service *service, const char **step);
/// Tells `service`'s `arrived` of every connection on the bus now (`ListNames`' unique names).
int ocl_bus_list_connections(sd_bus *bus, ocl_bus_service *service);
/// Asks for the well-known `name` (once the service's first objects are there).
int ocl_bus_request_name(sd_bus *bus, const char *name);
/// Adds an object with `vtable` at `path` for `service`.
int ocl_bus_add_object(sd_bus *bus, sd_bus_slot **slot, const char *path, const char *interface,
                       const sd_bus_vtable *vtable, ocl_bus_service *service);

/// An eventfd that wakes the bus thread (-1 with errno set on failure), and a wake-up through it.
int ocl_wake_fd(void);
void ocl_wake(int fd);

/// Runs the bus until it fails or `*stop` is set (by `ocl_bus_request_stop`, from any thread);
/// `wake` (an eventfd) calls the service's `wake`. Returns the negative errno the bus failed
/// with, 0 when stopped.
int ocl_bus_run(sd_bus *bus, int wake, int *stop, const ocl_bus_service *service);
void ocl_bus_request_stop(int *stop, int wake);

/// Replies to `call`: nothing, an object path, or an error by name.
int ocl_reply_empty(sd_bus_message *call);
int ocl_reply_object_path(sd_bus_message *call, const char *path);
int ocl_reply_error(sd_bus_message *call, const char *name, const char *message);

/// Sends `message` (a signal) to `destination` alone (to everyone when NULL): nobody else on the
/// bus learns of it. Takes the message.
int ocl_bus_send_to(sd_bus *bus, sd_bus_message *message, const char *destination);

/// Sends `call` and has its reply reach `service`'s `replied` with `token` (after `timeout_usec`
/// at most, as an error). Takes the call.
int ocl_bus_call_async(sd_bus *bus, sd_bus_message *call, ocl_bus_service *service, uint64_t token,
                       uint64_t timeout_usec);

/// What the bus daemon says of a connection (`GetConnectionCredentials`): its uid and pid, and a
/// pidfd when the bus gives one (`ProcessFD`, else -1, owned by the caller).
int ocl_peer_credentials(sd_bus *bus, const char *name, uint32_t *uid, uint32_t *pid, int *pidfd);

/// Reads a string or an unsigned 32-bit value written to a property.
int ocl_read_string(sd_bus_message *message, const char **value);
int ocl_read_uint32(sd_bus_message *message, uint32_t *value);
/// Reads the first argument of a call, a string or an object path.
int ocl_read_string_argument(sd_bus_message *message, char type, const char **value);

/// Appends a value to a property's reply.
int ocl_append_bool(sd_bus_message *reply, bool value);
int ocl_append_uint32(sd_bus_message *reply, uint32_t value);
int ocl_append_double(sd_bus_message *reply, double value);
int ocl_append_string(sd_bus_message *reply, const char *value);
int ocl_append_object_path(sd_bus_message *reply, const char *value);
int ocl_append_timestamp(sd_bus_message *reply, uint64_t seconds, uint64_t microseconds);
