// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// The activity indicator's object on D-Bus (org.opencorelocation.Activity1, whose introspection
// dist/dbus/org.opencorelocation.Activity1.xml holds): its vtable, which sd-bus's macros build,
// over CSDBus's generic connection. The messages it sends the Swift side builds itself.

#pragma once

#include "CSDBus.h"

/// Opens the system bus for `service`, adds the indicator's object and asks for
/// `org.opencorelocation.Activity`. Returns a negative errno on failure, with `*step` naming what failed.
int ocl_activity_open(sd_bus **bus, ocl_bus_service *service, const char **step);
