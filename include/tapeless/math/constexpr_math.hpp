// SPDX-License-Identifier: BSL-1.0
// tapeless/math/constexpr_math.hpp: PLACEHOLDER, to be replaced by the constexpr implementations.
// Until then it forwards to std::, which g++ evaluates at compile time but clang does not.
#pragma once

#include <cmath>

namespace tapeless::math::cx {
#define TAPELESS_CX_1(name) constexpr double name(double x) noexcept { return std::name(x); }
#define TAPELESS_CX_2(name) constexpr double name(double x, double y) noexcept { return std::name(x, y); }
TAPELESS_CX_1(exp) TAPELESS_CX_1(exp2) TAPELESS_CX_1(expm1) TAPELESS_CX_1(log) TAPELESS_CX_1(log2)
TAPELESS_CX_1(log10) TAPELESS_CX_1(log1p) TAPELESS_CX_1(sqrt) TAPELESS_CX_1(cbrt) TAPELESS_CX_1(sin)
TAPELESS_CX_1(cos) TAPELESS_CX_1(tan) TAPELESS_CX_1(asin) TAPELESS_CX_1(acos) TAPELESS_CX_1(atan)
TAPELESS_CX_1(sinh) TAPELESS_CX_1(cosh) TAPELESS_CX_1(tanh) TAPELESS_CX_1(asinh) TAPELESS_CX_1(acosh)
TAPELESS_CX_1(atanh) TAPELESS_CX_1(erf) TAPELESS_CX_1(erfc)
TAPELESS_CX_2(pow) TAPELESS_CX_2(atan2) TAPELESS_CX_2(hypot)
#undef TAPELESS_CX_1
#undef TAPELESS_CX_2
}  // namespace tapeless::math::cx
