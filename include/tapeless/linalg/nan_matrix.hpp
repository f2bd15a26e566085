// SPDX-License-Identifier: BSL-1.0
// tapeless/linalg/nan_matrix.hpp: the matrix every factorisation returns where it does not exist.
// Tests: test/unit/ops/factorisations/singular_test.cpp
#pragma once

#include <tapeless/matrix/matrix.hpp>

#include <limits>

namespace tapeless::detail::linalg {

template <class M>
constexpr M nan_matrix() {
  return M::filled(std::numeric_limits<typename M::value_type>::quiet_NaN());
}

}  // namespace tapeless::detail::linalg
