// SPDX-License-Identifier: GPL-2.0
// The library builds with -fvisibility=hidden; this marks the C ABI entry points.
// lib/libcxltier.map lists the same names and is what versions them.
#pragma once

#define CXLTIER_EXPORT extern "C" __attribute__((visibility("default")))
