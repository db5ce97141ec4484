// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

// libmosquitto, Eclipse Mosquitto's MQTT client library (Debian package libmosquitto-dev), for
// `gpsloc uplink` (the MQTT trait, on by default).
#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H

#include <mosquitto.h>

#endif
