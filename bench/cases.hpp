// SPDX-License-Identifier: BSL-1.0
// bench/cases.hpp: the cases of a bench file, each with every library of the benchmarks.
//
// A bench file describes each case as a struct, and runs them with tapeless_bench::run:
//
//   template <std::size_t N>  // its inputs () -> In, and its kernels In -> gradient (simd: optional)
//   struct s4 : tapeless_bench::kernels<s4_inputs<N>, s4_handwritten<N>, s4_tapeless<N>, s4_handwritten_simd<N>> {
//     static std::string name() { return "S4_log_sum_exp_" + std::to_string(N); }
//     // For the peers (optional, both or neither): the differentiated numbers, and the function of
//     // them written once for any number type T (double, ADOL-C's adouble, Sacado's, Eigen's).
//     static std::array<double, N> numbers(const s4_in<N>& in) { return tapeless_bench::numbers(in.x); }
//     template <class T>
//     static T f(const std::array<T, N>& x, const s4_in<N>& in) { ... }
//   };
//   int main(int argc, char** argv) { return tapeless_bench::run<s4<16>, s4<256>>(argc, argv); }
//
// Each case then has the benchmarks `<case>/handwritten`, `/handwritten_simd` (when given),
// `/tapeless`, and, when it has `f`, one per peer: adolc_tape, adolc_retape, sacado_rad, sacado_fad,
// eigen_forward, finite_diff (bench/peers/). Every one is checked against `handwritten` first.
//
// A case whose tapeless gradient is measured against another tapeless gradient of the same function
// (a sum over threads against the sequential one, rows of run-time number against the fixed shape)
// names that kernel, on the case's inputs, and the library it is timed as:
//
//     static constexpr auto tapeless_reference = s10_tapeless;
//     static constexpr const char* tapeless_reference_name = "tapeless_sequential";
//
// and has the benchmark `<case>/tapeless_sequential` beside `<case>/tapeless`, checked as every other.
//
// A case whose struct also names its tapeless code as users write it (users.hpp),
//
//     using users = tapeless_bench::as_users_write_it<s3_inputs<N>, s3_users<N>>;
//
// has a second case beside it, `<case>_users`, whose `tapeless` is that code, timed and checked against
// the same `handwritten` and `handwritten_simd` kernels.
//
// A case whose function takes many numbers, where the forward-mode peers and central differences
// would take seconds per gradient, names the peers it runs:
//
//     using peer_list = std::tuple<tapeless_bench::adolc::peer<tapeless_bench::adolc::mode::tape>,
//                                  tapeless_bench::sacado::rad>;
//
// A case may add libraries of its own (a peer that needs more than the function `f`, such as ADOL-C's
// checkpointing of a time-stepping loop) with `static void add_libraries(std::vector<entry_t>&, const
// std::string& case_name)`.
#pragma once

#include "harness.hpp"
#include "peers/adolc.hpp"
#include "peers/common.hpp"
#include "peers/eigen.hpp"
#include "peers/finite_diff.hpp"
#include "peers/sacado.hpp"
#include "suite.hpp"

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tapeless_bench {

/// The base of a case's struct: its inputs and kernels (see above), none for handwritten_simd when
/// the case has no vectorised hand-written gradient.
template <auto Inputs, auto Handwritten, auto Tapeless, auto HandwrittenSimd = nullptr>
struct kernels {
  static constexpr auto inputs = Inputs;
  static constexpr auto handwritten = Handwritten;
  static constexpr auto tapeless = Tapeless;
  static constexpr auto handwritten_simd = HandwrittenSimd;
};

/// A case's variant "as users write it" (users.hpp): tapeless code `Tapeless` as a user transcribes the
/// formula, on what `Inputs()` returns (the case's inputs, or them with a function made of them).
template <auto Inputs, auto Tapeless>
struct as_users_write_it {
  static constexpr auto inputs = Inputs;
  static constexpr auto tapeless = Tapeless;
};

/// Every peer library, in the order of the table.
using peers = std::tuple<adolc::peer<adolc::mode::tape>, adolc::peer<adolc::mode::retape>, sacado::rad, sacado::fad,
                         eigen::forward, finite_diff>;

/// The suffix of a case's name that makes the name of its variant as users write it.
inline constexpr const char* users_suffix = "_users";

namespace detail {

template <class Case>
using input_t = decltype(Case::inputs());
template <class Case>
using gradient_t = std::remove_cvref_t<decltype(invoke_kernel<Case::handwritten>(Case::inputs()))>;

template <class Case>
concept has_peers = requires(const input_t<Case>& in) {
  Case::numbers(in);
};

/// The case's function at its constants `in`, of the differentiated numbers only: what a peer differentiates.
template <class Case>
auto function_at(const input_t<Case>& in) {
  return [&in](const auto& x) { return Case::f(x, in); };
}

/// The kernel of a peer on a case; Id numbers the case in its executable.
template <class Case, class Peer, int Id>
TAPELESS_BENCH_KERNEL gradient_t<Case> peer_kernel(const input_t<Case>& in) {
  return Peer::template gradient<gradient_t<Case>>(Id, Case::numbers(in), function_at<Case>(in));
}

template <class Case, class Peer, int Id>
void prepare_peer() {
  const auto in = Case::inputs();
  Peer::prepare(Id, Case::numbers(in), function_at<Case>(in));
}

template <class Case, class Peer, int Id>
entry_t peer_entry(const std::string& case_name) {
  tolerance agreement = exact;
  if constexpr (requires { Peer::agreement; }) agreement = Peer::agreement;
  void (*prepare)() = nullptr;
  if constexpr (requires(const input_t<Case>& in) { Peer::prepare(Id, Case::numbers(in), function_at<Case>(in)); })
    prepare = &prepare_peer<Case, Peer, Id>;
  return entry<peer_kernel<Case, Peer, Id>, Case::inputs>(case_name + "/" + Peer::name, agreement, prepare);
}

/// The hand-written adjoints of Case and tapeless's `Tapeless`, all on what `Inputs()` returns, as the
/// case named `c`.
template <class Case, auto Inputs, auto Tapeless>
void add_handwritten_and_tapeless(std::vector<entry_t>& entries, const std::string& c) {
  entries.push_back(entry<Case::handwritten, Inputs>(c + "/handwritten"));
  if constexpr (!std::is_null_pointer_v<decltype(Case::handwritten_simd)>)
    entries.push_back(entry<Case::handwritten_simd, Inputs>(c + "/handwritten_simd"));
  if constexpr (!std::is_null_pointer_v<decltype(Tapeless)>)
    entries.push_back(entry<Tapeless, Inputs>(c + "/tapeless"));
}

template <class Case>
struct peers_of {
  using type = peers;
};
template <class Case>
  requires requires { typename Case::peer_list; }
struct peers_of<Case> {
  using type = typename Case::peer_list;
};

template <class Case, int Id>
void add_case(std::vector<entry_t>& entries) {
  const std::string c = Case::name();
  add_handwritten_and_tapeless<Case, Case::inputs, Case::tapeless>(entries, c);
  if constexpr (requires { Case::tapeless_reference; })
    entries.push_back(entry<Case::tapeless_reference, Case::inputs>(c + "/" + Case::tapeless_reference_name));
  if constexpr (has_peers<Case>)
    [&]<class... Peer>(std::tuple<Peer...>*) {
      (entries.push_back(peer_entry<Case, Peer, Id>(c)), ...);
    }(static_cast<typename peers_of<Case>::type*>(nullptr));
  if constexpr (requires { Case::add_libraries(entries, c); }) Case::add_libraries(entries, c);
  // Beside it, the case as users write it, timed against the same hand-written adjoints (no peers:
  // their code is the case's).
  if constexpr (requires { typename Case::users; })
    add_handwritten_and_tapeless<Case, Case::users::inputs, Case::users::tapeless>(entries, c + users_suffix);
}

}  // namespace detail

/// tapeless_bench::main on every library of every case, in this order. The finite differences check
/// each hand-written gradient; `check` may add checks of its own (see main).
template <class... Cases>
int run(int argc, char** argv, bool (*check)() = nullptr) {
  std::vector<entry_t> entries;
  // Case k is numbered k + 1 (ADOL-C's tapes 2k + 2 and 2k + 3).
  [&]<std::size_t... K>(std::index_sequence<K...>) { (detail::add_case<Cases, static_cast<int>(K) + 1>(entries), ...); }
  (std::index_sequence_for<Cases...>{});
  return main(argc, argv, check, entries);
}

}  // namespace tapeless_bench
