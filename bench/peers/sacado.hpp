// SPDX-License-Identifier: BSL-1.0
// bench/peers/sacado.hpp: Sacado (Trilinos; Debian's libtrilinos-sacado-dev) as two peers
// (bench/peers/common.hpp):
//   sacado::rad  `<case>/sacado_rad`: reverse mode by operator overloading, Sacado::Rad::ADvar<double>.
//                Every operation records a node in Sacado's global memory blocks, reused after each
//                gradient; Outvar_Gradcomp sweeps them backwards from the output.
//   sacado::fad  `<case>/sacado_fad`: forward mode, Sacado::Fad::SFad<double, N>, every number
//                carrying its N partial derivatives: one forward pass costs about N function evaluations.
#pragma once

// System headers (bench/CMakeLists.txt): their warnings are not ours. Sacado's configuration pulls
// in Kokkos and Teuchos headers; SACADO_DISABLE_FAD_VIEW_SPEC (bench/CMakeLists.txt) keeps out its
// Kokkos views of Fad numbers and, with them, MPI.
#include <Sacado_Fad_SFad.hpp>
#include <Sacado_trad.hpp>

#include "common.hpp"

#include <array>
#include <cstddef>
#include <utility>

namespace tapeless_bench::sacado {

struct rad {
  static constexpr const char* name = "sacado_rad";

  template <class R, std::size_t N, class F>
  static R gradient(int, const std::array<double, N>& x, const F& f) {
    using var = Sacado::Rad::ADvar<double>;
    std::array<var, N> ax;
    for (std::size_t i = 0; i < N; ++i) ax[i] = x[i];  // an independent variable each
    var y = f(std::as_const(ax));
    var::Outvar_Gradcomp(y);
    std::array<double, N> g;
    for (std::size_t i = 0; i < N; ++i) g[i] = ax[i].adj();
    return as_gradient<R>(g);
  }
};

struct fad {
  static constexpr const char* name = "sacado_fad";

  template <class R, std::size_t N, class F>
  static R gradient(int, const std::array<double, N>& x, const F& f) {
    using number = Sacado::Fad::SFad<double, static_cast<int>(N)>;
    return forward_mode_gradient<number, R>(
        x, f, [](double v, int i) { return number(static_cast<int>(N), i, v); },
        [](const number& y, int i) { return y.dx(i); });
  }
};

}  // namespace tapeless_bench::sacado
