// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

#include "CGeoClueBus.h"

#define MANAGER_PATH "/org/freedesktop/GeoClue2/Manager"
#define MANAGER_INTERFACE "org.freedesktop.GeoClue2.Manager"
#define CLIENT_INTERFACE "org.freedesktop.GeoClue2.Client"
#define LOCATION_INTERFACE "org.freedesktop.GeoClue2.Location"
#define AGENT_INTERFACE "org.freedesktop.GeoClue2.Agent"
#define AGENT_PATH "/org/freedesktop/GeoClue2/Agent"

#define CALL SD_BUS_VTABLE_UNPRIVILEGED

static const sd_bus_vtable manager_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("InUse", "b", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AvailableAccuracyLevel", "u", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD_WITH_NAMES("GetClient", "", , "o", SD_BUS_PARAM(client), ocl_bus_method, CALL),
    SD_BUS_METHOD_WITH_NAMES("CreateClient", "", , "o", SD_BUS_PARAM(client), ocl_bus_method, CALL),
    SD_BUS_METHOD_WITH_NAMES("DeleteClient", "o", SD_BUS_PARAM(client), "", , ocl_bus_method, CALL),
    SD_BUS_METHOD_WITH_NAMES("AddAgent", "s", SD_BUS_PARAM(id), "", , ocl_bus_method, CALL),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable client_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Location", "o", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_WRITABLE_PROPERTY("DistanceThreshold", "u", ocl_bus_get, ocl_bus_set, 0,
                             SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | CALL),
    SD_BUS_WRITABLE_PROPERTY("TimeThreshold", "u", ocl_bus_get, ocl_bus_set, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | CALL),
    SD_BUS_WRITABLE_PROPERTY("DesktopId", "s", ocl_bus_get, ocl_bus_set, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | CALL),
    SD_BUS_WRITABLE_PROPERTY("RequestedAccuracyLevel", "u", ocl_bus_get, ocl_bus_set, 0,
                             SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | CALL),
    SD_BUS_PROPERTY("Active", "b", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD("Start", "", "", ocl_bus_method, CALL),
    SD_BUS_METHOD("Stop", "", "", ocl_bus_method, CALL),
    SD_BUS_SIGNAL_WITH_NAMES("LocationUpdated", "oo", SD_BUS_PARAM(old) SD_BUS_PARAM(new), 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable location_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Latitude", "d", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Longitude", "d", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Accuracy", "d", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Altitude", "d", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Speed", "d", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Heading", "d", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Description", "s", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("Timestamp", "(tt)", ocl_bus_get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

int ocl_geoclue_open(sd_bus **bus, ocl_bus_service *service, const char **step) {
    int r = ocl_bus_open_system(bus, service, step);
    if (r < 0) return r;
    *step = "adding the Manager object";
    r = ocl_bus_add_object(*bus, NULL, MANAGER_PATH, MANAGER_INTERFACE, manager_vtable, service);
    if (r < 0) goto failed;
    *step = "owning the name org.freedesktop.GeoClue2";
    r = ocl_bus_request_name(*bus, "org.freedesktop.GeoClue2");
    if (r < 0) goto failed;
    return 0;
failed:
    *bus = sd_bus_flush_close_unref(*bus);
    return r;
}

int ocl_geoclue_add_client(sd_bus *bus, sd_bus_slot **slot, const char *path, ocl_bus_service *service) {
    return ocl_bus_add_object(bus, slot, path, CLIENT_INTERFACE, client_vtable, service);
}

int ocl_geoclue_add_location(sd_bus *bus, sd_bus_slot **slot, const char *path, ocl_bus_service *service) {
    return ocl_bus_add_object(bus, slot, path, LOCATION_INTERFACE, location_vtable, service);
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
    return ocl_bus_send_to(bus, signal, destination);
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
    return ocl_bus_send_to(bus, signal, destination);
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
    return ocl_bus_send_to(bus, signal, NULL);
}

int ocl_agent_authorize(sd_bus *bus, ocl_bus_service *service, const char *destination, const char *desktop_id,
                        uint32_t level, uint64_t token, uint64_t timeout_usec) {
    sd_bus_message *call = NULL;
    int r = sd_bus_message_new_method_call(bus, &call, destination, AGENT_PATH, AGENT_INTERFACE, "AuthorizeApp");
    if (r < 0) return r;
    r = sd_bus_message_append(call, "su", desktop_id, level);
    if (r < 0) {
        sd_bus_message_unref(call);
        return r;
    }
    return ocl_bus_call_async(bus, call, service, token, timeout_usec);
}

void ocl_geoclue_read_authorization(sd_bus_message *reply, bool *failed, bool *authorized, uint32_t *level) {
    int granted = 0;
    *level = 0;
    *failed = sd_bus_message_is_method_error(reply, NULL) || sd_bus_message_read(reply, "bu", &granted, level) < 0;
    *authorized = granted != 0;
}
