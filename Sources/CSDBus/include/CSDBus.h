// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// GeoClue2's objects on D-Bus through sd-bus (libsystemd): the vtables sd-bus's macros build,
// and the few calls whose sd-bus form is variadic, which Swift cannot call. Every decision is the
// Swift side's: these functions only move values between the bus and its handlers.

#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/// What the bus asks of the service; every call happens on the thread that runs the bus.
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
    /// An agent answered `AuthorizeApp` (`failed` when it did not, or answered nonsense).
    void (*authorized)(void *context, uint64_t token, bool failed, bool authorized, uint32_t level);
    /// The bus thread was woken to run queued work.
    void (*wake)(void *context);
} ocl_geoclue_handlers;

/// Opens the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set), adds the Manager, asks for
/// `org.freedesktop.GeoClue2` and watches connections leave. Returns a negative errno on failure,
/// with `*step` naming what failed.
int ocl_geoclue_open(sd_bus **bus, const ocl_geoclue_handlers *handlers, void *context,
                     const char **step);

/// Adds a Client object with its Location-holding properties at `path`.
int ocl_geoclue_add_client(sd_bus *bus, sd_bus_slot **slot, const char *path, void *context);
/// Adds a Location object at `path`.
int ocl_geoclue_add_location(sd_bus *bus, sd_bus_slot **slot, const char *path, void *context);

/// An eventfd that wakes the bus thread (-1 with errno set on failure), and a wake-up through it.
int ocl_wake_fd(void);
void ocl_wake(int fd);

/// Runs the bus until it fails or `*stop` is set (by `ocl_geoclue_request_stop`, from any
/// thread); `wake` (an eventfd) calls the handlers' `wake`. Returns the negative errno the bus
/// failed with, 0 when stopped.
int ocl_geoclue_run(sd_bus *bus, int wake, int *stop, const ocl_geoclue_handlers *handlers, void *context);
void ocl_geoclue_request_stop(int *stop, int wake);

/// Replies to `call`: nothing, an object path, or an error by name.
int ocl_reply_empty(sd_bus_message *call);
int ocl_reply_object_path(sd_bus_message *call, const char *path);
int ocl_reply_error(sd_bus_message *call, const char *name, const char *message);

/// `LocationUpdated(old, new)` from the client at `path`, sent to `destination` alone.
int ocl_emit_location_updated(sd_bus *bus, const char *destination, const char *path, const char *old_path,
                              const char *new_path);
/// `PropertiesChanged` of a Client (`Active` and `Location`), sent to `destination` alone.
int ocl_emit_client_changed(sd_bus *bus, const char *destination, const char *path, bool active,
                            const char *location);
/// `PropertiesChanged` of the Manager's `InUse`, to everyone (GeoClue's shell indicator).
int ocl_emit_in_use(sd_bus *bus, bool in_use);

/// What the bus daemon says of a connection (`GetConnectionCredentials`): its uid and pid, and a
/// pidfd when the bus gives one (`ProcessFD`, else -1, owned by the caller).
int ocl_peer_credentials(sd_bus *bus, const char *name, uint32_t *uid, uint32_t *pid, int *pidfd);

/// Asks the agent of connection `destination` `AuthorizeApp(desktop_id, level)`; the answer
/// reaches the handlers' `authorized` with `token`.
int ocl_agent_authorize(sd_bus *bus, const char *destination, const char *desktop_id, uint32_t level,
                        uint64_t token, uint64_t timeout_usec);

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
