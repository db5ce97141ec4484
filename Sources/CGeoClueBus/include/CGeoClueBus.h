// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// GeoClue2's objects on D-Bus: the vtables of its Manager, Client and Location interfaces (which
// sd-bus's macros build), its signals and its agent's call, over CSDBus's generic connection.

#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "CSDBus.h"

/// Opens the system bus for `service`, adds the Manager and asks for `org.freedesktop.GeoClue2`.
/// Returns a negative errno on failure, with `*step` naming what failed.
int ocl_geoclue_open(sd_bus **bus, ocl_bus_service *service, const char **step);

/// Adds a Client object with its Location-holding properties at `path`.
int ocl_geoclue_add_client(sd_bus *bus, sd_bus_slot **slot, const char *path, ocl_bus_service *service);
/// Adds a Location object at `path`.
int ocl_geoclue_add_location(sd_bus *bus, sd_bus_slot **slot, const char *path, ocl_bus_service *service);

/// `LocationUpdated(old, new)` from the client at `path`, sent to `destination` alone.
int ocl_emit_location_updated(sd_bus *bus, const char *destination, const char *path, const char *old_path,
                              const char *new_path);
/// `PropertiesChanged` of a Client (`Active` and `Location`), sent to `destination` alone.
int ocl_emit_client_changed(sd_bus *bus, const char *destination, const char *path, bool active,
                            const char *location);
/// `PropertiesChanged` of the Manager's `InUse`, to everyone (GeoClue's shell indicator).
int ocl_emit_in_use(sd_bus *bus, bool in_use);

/// Asks the agent of connection `destination` `AuthorizeApp(desktop_id, level)`; the reply
/// reaches `service`'s `replied` with `token` (read it with `ocl_geoclue_read_authorization`).
int ocl_agent_authorize(sd_bus *bus, ocl_bus_service *service, const char *destination, const char *desktop_id,
                        uint32_t level, uint64_t token, uint64_t timeout_usec);
/// An `AuthorizeApp` reply: whether it failed (an error, or nonsense), else what it granted.
void ocl_geoclue_read_authorization(sd_bus_message *reply, bool *failed, bool *authorized, uint32_t *level);
