// SPDX-License-Identifier: BSL-1.0
// tapeless/version.hpp: the library version, read by CMake for the package version.
// Tests: test/package/
#pragma once

#define TAPELESS_VERSION_MAJOR 0
#define TAPELESS_VERSION_MINOR 1
#define TAPELESS_VERSION_PATCH 0

namespace tapeless {
inline constexpr int version_major = TAPELESS_VERSION_MAJOR;
inline constexpr int version_minor = TAPELESS_VERSION_MINOR;
inline constexpr int version_patch = TAPELESS_VERSION_PATCH;
}  // namespace tapeless
