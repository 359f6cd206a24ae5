/* SPDX-License-Identifier: ISC */
/* src/lock/measure/measure_internal.h — the internals of measurement
 * (docs/DESIGN.md §4, room measure/): what the calibration, the floor,
 * the promise and the container's notice share. */
#ifndef RXLOCK_MEASURE_INTERNAL_H
#define RXLOCK_MEASURE_INTERNAL_H
#include "lock/core/core_internal.h"
#include "rxlock/calibrate.h"
#endif
