// SPDX-License-Identifier: BSL-1.0
// tapeless/math/constexpr_math.hpp: the library's constexpr elementary functions, tapeless::math::cx.
//
// tapeless/math/functions.hpp calls these in constant expressions (clang cannot evaluate std::sin
// and friends there). They take and return double, follow the C special cases (NaN, infinities,
// signed zeros, domain errors give NaN) and agree with a good run-time libm to within one or two
// ulps. Subnormal results are correct up to a possible double rounding.
//
// They rely on IEEE double arithmetic with round-to-nearest and no contraction of a*b + c into an
// FMA, which is what constant evaluation does on every compiler. Called at run time under
// -ffast-math or -ffp-contract=fast with FMA hardware, the double-double steps lose accuracy.
// Tests: test/unit/math/cx/
#pragma once

#include <tapeless/math/cx/common.hpp>
#include <tapeless/math/cx/exponential.hpp>
#include <tapeless/math/cx/hyperbolic.hpp>
#include <tapeless/math/cx/power.hpp>
#include <tapeless/math/cx/special.hpp>
#include <tapeless/math/cx/trigonometric.hpp>
