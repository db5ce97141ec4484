// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// libgps, the client library of gpsd (Debian package libgps-dev), for the LibGPS trait.
#ifndef CGPS_SHIM_H
#define CGPS_SHIM_H

#include <gps.h>

// The report masks and constants gps.h defines as macros Swift cannot import.
static inline gps_mask_t cgps_mode_set(void) { return MODE_SET; }
static inline gps_mask_t cgps_satellite_set(void) { return SATELLITE_SET; }
static inline unsigned int cgps_watch_json(void) { return WATCH_ENABLE | WATCH_JSON; }
static inline unsigned int cgps_watch_device(void) { return WATCH_DEVICE; }
static inline const char *cgps_shared_memory(void) { return GPSD_SHARED_MEMORY; }
static inline int cgps_api_major_version(void) { return GPSD_API_MAJOR_VERSION; }

#endif
