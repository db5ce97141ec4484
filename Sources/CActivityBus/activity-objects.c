// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#include "CActivityBus.h"

#define ACTIVITY_PATH "/org/opencorelocation/Activity"
#define ACTIVITY_INTERFACE "org.opencorelocation.Activity1"

static const sd_bus_vtable activity_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Programs", "a(usssbt)", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("InUse", "b", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_VTABLE_END,
};

int ocl_activity_open(sd_bus **bus, ocl_bus_service *service, const char **step) {
    int r = ocl_bus_open_system(bus, service, step);
    if (r < 0) return r;
    *step = "adding the activity object";
    r = ocl_bus_add_object(*bus, NULL, ACTIVITY_PATH, ACTIVITY_INTERFACE, activity_vtable, service);
    if (r < 0) goto failed;
    *step = "owning the name org.opencorelocation.Activity";
    r = ocl_bus_request_name(*bus, "org.opencorelocation.Activity");
    if (r < 0) goto failed;
    return 0;
failed:
    *bus = sd_bus_flush_close_unref(*bus);
    return r;
}
