// SPDX-License-Identifier: BSL-1.0
// A libFuzzer target: fuzzer bytes choose one of six families of composed functions, the operations in it and its
// inputs, and the gradient is checked. Built with clang's -fsanitize=fuzzer,address,undefined
// (TAPELESS_BUILD_FUZZ, test/fuzz/CMakeLists.txt), so memory errors and undefined behaviour stop it too.
//
// Input bytes: [0] the function (bits 4 and 5 both set: a loop over data; with bit 6 as well, a sum over
// rows; with bit 3 as well, the steps; with bits 3 and 6, a sum over indices or pairs; else bit 0: numbers
// or matrices) and the mode (bit 1: raw doubles); [1..5] the operations (of the registry,
// test/support/operations.hpp, chosen by name: struct choices); for the sums over rows, indices or pairs
// and for the steps, two bytes of their count; then the inputs, 8 bytes each as raw doubles (NaN,
// infinities, subnormals, anything), or 2 bytes each mapped to [-4, 4] (off the grid of 2-byte values: see
// reader::mapped). Missing bytes read as 0.
//
// Every input: tl::value_and_grad's value equals the function evaluated on plain doubles (NaN matching
// NaN), and for numbers the gradient equals the one tl::var's backward() accumulates (NaN matching NaN,
// or an infinity where the cut's grouping of products meets it: regrouped_at_infinity; for raw inputs,
// any difference once a result left the normal range, counted: left_normal_range). Mapped inputs
// also: each component of the gradient against central differences (fd::derivative_and_error). They
// cannot decide where their error estimate reaches the tolerance (a kink of abs, min, max or
// max_element within the step; f's rounding divided by the step) or where the one-sided slopes near x
// do not shrink in step with the step (a kink at or very near x: a tie or near-tie), nor, for numbers,
// where f on doubles is further from f on long double than the differences allow (an intermediate
// that absorbs most of a small addend: a staircase); such a component is skipped, and counted: at exit the target
// prints how many components were compared and skipped, and aborts if fewer than half were compared.
//
// The matrices' function also has a counterpart of the operations arrays of run-time extents take
// (comparisons, if_else, transpose, diag, softmax, products by a fixed matrix, the reductions), run on
// the 2 x 2 matrix and on a tl::dynamic copy of exactly its 4 elements: for mapped inputs where the fixed
// run is finite, the same value and gradients within the roundings of sums taken in another order
// (run_time_matrices_case).
//
// The loop over data: sum (or mean) over 40 data points of a term in the point and two numbers, the
// shape whose fused loop keeps the factors common to every element apart (sweep/scaled.hpp) and
// falls back to plain adjoints outside the normal range. Its gradient is checked against the sum of
// the terms' gradients, each taken on numbers alone (no loop), within a bound of the summation's
// rounding: a few roundings per addend of the sum of the addends' magnitudes (loop_case).
//
// The sum over rows: tl::sum_over (or tl::mean_over) over tl::rows of two columns of n data points,
// n from the input (0 to 300: empty, less than a SIMD batch, whole batches and a remainder), each column
// a std::vector of exactly n elements, so that AddressSanitizer sees a read past its end. Its term is
// one of the loop's terms plus the second column times a, its value is checked against the same sum
// in a plain loop on doubles, its gradient against the sum of the rows' gradients on numbers, as the
// loop's (rows_case).
//
// The sums over indices and pairs: tl::sum_over (or tl::mean_over) over tl::indices(n) (n from 0 to 300) of
// the rows' term in x[i] and x[i + 1], or over tl::pairs(n) (n from 0 to 40) of it in x[i] - x[j] and
// x[j], x a parameter vector of 301 elements read by index. Value and gradient in a and b as the sum over
// rows'; the gradient in x against the terms' gradients in the two elements each reads, added up by hand;
// and the same sum over a tl::dynamic copy of exactly the elements the terms read, the same bits
// (indices_case).
//
// The steps: tl::iterate of n steps (0 to 300) of s + h term(s, a, b), with every state stored and with
// tl::checkpoints<1> or <3> (binomial schedules that recompute most steps). The value equals the plain
// loop's; the two policies' gradients are equal to the bit (NaN matching NaN); the gradient against the
// reverse loop written by hand from each step's gradient on numbers, within a bound that loop carries
// beside the adjoint; for mapped inputs against central differences of the plain loop (steps_case).
//
// One family at a time: the environment variable TAPELESS_FUZZ_FAMILY=numbers, matrices, loop, rows,
// steps or indices, and
// TAPELESS_FUZZ_MODE=raw or mapped, make the mutator set byte 0's bits to that function or mode on every
// input it makes, so that a campaign spends its time on one family. Each input still says its family in
// its own byte 0: a saved input runs the same without the variables. Unset, every family and mode.
#include <tapeless/tapeless.hpp>

#include <finite_difference.hpp>
#include <operations.hpp>

#include <algorithm>
#include <array>
#include <cfenv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace tl = tapeless;

/// tl::if_else(c, a, b), for matrices with a mask of c everywhere: the bool form does not take plain
/// matrices (reported), and the function must be evaluated on them too.
template <class A, class B>
constexpr auto pick(bool c, const A& a, const B& b) {
  using V = tl::value_type_of_t<A>;
  if constexpr (tl::Matrix<V>)
    return tl::if_else(tl::mask<V::rows(), V::cols()>::filled(c), a, b);
  else
    return tl::if_else(c, a, b);
}

// ---- the operations: the registry's (test/support/operations.hpp) --------------------------------

/// x mapped onto where an operand is defined, for x anywhere: e + 1 + x x above a lower edge e (log and
/// sqrt of 1 + x x), below an upper one the same mirrored, the middle of a bounded one plus 0.9 of its
/// half-width times tanh(x); off a pole (div's divisor) as above its edge. Where the registry draws
/// points in a bounded interval of a function defined everywhere (exp's [-5, 5], tan's, pow's
/// exponent), into it by tanh as well: else pow(1 + x x, -4) is so small that 1 + t t rounds to 1 in
/// a later log, and finite differences see a flat function where the gradient is not 0. Elsewhere x.
template <bool Unary, std::size_t I, std::size_t Side, class X>
constexpr decltype(auto) onto(const X& x) {
  constexpr registry::operand_domain D = [] {
    if constexpr (Unary)
      return std::get<I>(registry::unary_operations).info.domain;
    else
      return std::get<I>(registry::binary_operations).info.domain[Side];
  }();
  constexpr registry::interval d = D.defined;
  if constexpr (D.kink && D.pole)
    return (*D.kink + 1.0) + x * x;
  else if constexpr (d.lo > -registry::inf && d.hi < registry::inf)
    return (d.lo + d.hi) / 2 + 0.45 * (d.hi - d.lo) * tl::tanh(x);
  else if constexpr (d.lo == -registry::inf && d.hi == registry::inf && D.points.lo > -registry::inf &&
                     D.points.hi < registry::inf)
    return (D.points.lo + D.points.hi) / 2 + 0.5 * (D.points.hi - D.points.lo) * tl::tanh(x);
  else if constexpr (d.lo > -registry::inf)
    return (d.lo + 1.0) + x * x;
  else if constexpr (d.hi < registry::inf)
    return (d.hi - 1.0) - x * x;
  else
    return (x);  // a reference: a tl::var is not copied
}

/// The unary operations in two slots, each operation in one, by a bit of its name's hash: the numbers'
/// function applies one of the first slot and two of the second, the matrices' one of each, so that
/// each function builds every operation of its slot (pick) without the compile time of all of them in
/// every place. A name's slot does not change when an operation is added. (The seed puts the operations
/// of test/fuzz/regressions/'s inputs in the slots they are read from.)
constexpr bool in_second_slot(std::string_view name) { return (registry::mix(registry::name_hash(name), 33) & 1) != 0; }
template <bool Second>
constexpr std::size_t slot_size = [] {
  std::size_t n = 0;
  for (const auto& op : registry::unary_table) n += in_second_slot(op.name) == Second ? 1 : 0;
  return n;
}();
/// The registry's positions of the slot's operations, and their names' hashes.
template <bool Second>
constexpr auto slot = [] {
  std::array<std::size_t, slot_size<Second>> s{};
  std::size_t j = 0;
  for (std::size_t i = 0; i < registry::unary_count; ++i)
    if (in_second_slot(registry::unary_table[i].name) == Second) s[j++] = i;
  return s;
}();
template <std::size_t N>
constexpr std::array<std::uint64_t, N> hashes_of(const std::array<std::size_t, N>& positions, bool unary) {
  std::array<std::uint64_t, N> h{};
  for (std::size_t i = 0; i < N; ++i)
    h[i] = registry::name_hash(unary ? registry::unary_table[positions[i]].name
                                     : registry::binary_table[positions[i]].name);
  return h;
}
template <bool Second>
constexpr auto slot_hashes = hashes_of(slot<Second>, true);
constexpr auto binary_positions = [] {
  std::array<std::size_t, registry::binary_count> p{};
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = i;
  return p;
}();
constexpr auto binary_hashes = hashes_of(binary_positions, false);

/// Every value of a byte chooses an operation; each operation is chosen by some.
template <std::size_t N>
constexpr bool every_one_chosen(const std::array<std::uint64_t, N>& hashes) {
  std::array<bool, N> chosen{};
  for (unsigned b = 0; b < 256; ++b) chosen[registry::choose(b, hashes)] = true;
  for (const bool c : chosen)
    if (!c) return false;
  return true;
}
static_assert(every_one_chosen(slot_hashes<false>) && every_one_chosen(slot_hashes<true>) &&
                  every_one_chosen(binary_hashes),
              "an operation of the registry that no byte chooses");

/// The operations the bytes choose: registry positions, drawn by name (registry::choose), so that an
/// operation added to the registry leaves the others' bytes as they are. The structural choices (the
/// matrices' operation and reduction, the loop's term, sum or mean) read a byte modulo 16 (bytes 0 to
/// 2) or 9 (bytes 3 and 4), as the inputs of test/fuzz/regressions/ are read.
struct choices {
  std::array<std::uint8_t, 5> bytes{};
  std::size_t u0 = slot<false>[registry::choose(bytes[0], slot_hashes<false>)];
  std::size_t u1 = slot<true>[registry::choose(bytes[1], slot_hashes<true>)];
  std::size_t u2 = slot<true>[registry::choose(bytes[2], slot_hashes<true>)];
  std::size_t b0 = registry::choose(bytes[3], binary_hashes);
  std::size_t b1 = registry::choose(bytes[4], binary_hashes);
  [[nodiscard]] int among(std::size_t byte, int n) const { return bytes[byte] % (byte < 3 ? 16 : 9) % n; }
};

/// Operation I of the registry, of x mapped onto its domain.
template <std::size_t I, class X>
constexpr auto unary_at(const X& x) {
  return std::get<I>(registry::unary_operations).apply(onto<true, I, 0>(x));
}
template <std::size_t I, class A, class B>
constexpr auto binary_at(const A& a, const B& b) {
  return std::get<I>(registry::binary_operations).apply(onto<false, I, 0>(a), onto<false, I, 1>(b));
}

/// pick(k == I0, make<I0>(), pick(k == I1, make<I1>(), ... make<In>()))
template <class Make, std::size_t First, std::size_t... Rest>
constexpr auto chain(std::size_t k, const Make& make, std::index_sequence<First, Rest...>) {
  if constexpr (sizeof...(Rest) == 0)
    return make.template operator()<First>();
  else
    return pick(k == First, make.template operator()<First>(), chain(k, make, std::index_sequence<Rest...>{}));
}

/// The operation at registry position k, of the slot's: pick builds them all and sends the adjoint to
/// the chosen one only.
template <bool Second, class X>
constexpr auto unary(std::size_t k, const X& x) {
  return [&]<std::size_t... J>(std::index_sequence<J...>) {
    constexpr auto s = slot<Second>;
    return chain(
        k, [&x]<std::size_t I>() { return unary_at<I>(x); }, std::index_sequence<s[J]...>{});
  }
  (std::make_index_sequence<slot_size<Second>>{});
}

/// The binary operation at registry position k.
template <class A, class B>
constexpr auto binary(std::size_t k, const A& a, const B& b) {
  // Each operand shared by a let, rather than copied into every branch.
  return tl::let(a, [k, &b](auto x) {
    return tl::let(b, [k, x](auto y) {
      return chain(
          k, [&x, &y]<std::size_t I>() { return binary_at<I>(x, y); },
          std::make_index_sequence<registry::binary_count>{});
    });
  });
}

/// Function 0, of three numbers: a chain with a shared intermediate.
constexpr auto numbers = [](const choices& c) {
  return [c](const auto& x, const auto& y, const auto& z) {
    return tl::let(binary(c.b0, unary<false>(c.u0, x), y),
                   [c, &z](auto t) { return binary(c.b1, unary<true>(c.u1, t), unary<true>(c.u2, z) * t); });
  };
};

/// m mᵀ + I, positive definite.
template <class M>
constexpr auto spd(const M& m) {
  return tl::matmul(m, tl::transpose(m)) + tl::matrix<double, 2, 2>{{1, 0}, {0, 1}};
}

/// Function 1, of a 2 x 2 matrix, a 2-vector and a number: a matrix operation, then a reduction.
constexpr auto matrices = [](const choices& c) {
  return [c](const auto& a, const auto& v, const auto& s) {
    const int k = c.among(3, 6);
    const auto m =
        pick(k == 0, tl::matmul(a, a),
             pick(k == 1, tl::inverse(spd(a)),
                  pick(k == 2, tl::cholesky(spd(a)),
                       pick(k == 3, tl::softmax(a), pick(k == 4, tl::transpose(a), unary<false>(c.u0, a))))));
    const auto w = binary(c.b1, tl::matmul(m, v), s);
    const int r = c.among(1, 8);
    return pick(r == 0, tl::det(m),
                pick(r == 1, tl::log_det(spd(m)),
                     pick(r == 2, tl::log_sum_exp(w),
                          pick(r == 3, tl::norm(m) + tl::dot(w, v),
                               pick(r == 4, tl::sum(tl::solve(spd(m), w)),
                                    pick(r == 5, tl::prod(w) + tl::trace(m),
                                         pick(r == 6, tl::max_element(m) * s, tl::sum(unary<true>(c.u2, w)))))))));
  };
};

/// Function 1's counterpart of the operations arrays of run-time extents take (comparisons, if_else,
/// transpose, diag, softmax, products by a fixed matrix and of the array by itself, the reductions), of a
/// 2 x 2 matrix a of either kind: a tl::dynamic copy must give the fixed matrix's value and gradients.
constexpr auto run_time_matrices = [](const choices& c) {
  return [c](const auto& a, const auto& v, const auto& s) {
    const int k = c.among(3, 6);
    const auto m = pick(k == 0, tl::if_else(a > s, a, s * a),
                        pick(k == 1, tl::transpose(a) * s,
                             pick(k == 2, tl::softmax(a),
                                  pick(k == 3, tl::diag(tl::diag(a)) + a,
                                       pick(k == 4, tl::matmul(a, a), tl::matmul(tl::transpose(a), a) * s)))));
    const auto w = tl::matmul(m, v) + tl::matmul(tl::transpose(v), m)(0, 1);
    const int r = c.among(4, 6);
    return pick(r == 0, tl::log_sum_exp(w),
                pick(r == 1, tl::norm(m) + tl::dot(w, v),
                     pick(r == 2, tl::prod(w) + tl::trace(m),
                          pick(r == 3, tl::max_element(m) * s,
                               pick(r == 4, tl::log_sum_exp(a) * tl::sum(w), tl::sum(tl::if_else(w > v, w, v * s)))))));
  };
};

/// The terms of the loop over data: each one of the shapes sweep/scaled.hpp sweeps apart (negation, the
/// right side of a subtraction, products and quotients by a number, square's 2) or keeps in its lines
/// (a function of the point, a product of two varying factors). d is the data point (or all of them);
/// a and b hold the two numbers once per use (std::tie(a, a, a) in the loop), so that the reference can
/// give each use its own argument and see the addends of the gradient that the chain rule sums.
template <int K>
constexpr auto term = [](const auto& d, const auto& a, const auto& b) {
  using std::get;
  if constexpr (K == 0)
    return -0.5 * tl::square((d - get<0>(a)) / get<0>(b)) -
           tl::log(1.0 + get<1>(b) * get<2>(b));  // normal_logpdf's form
  else if constexpr (K == 1)
    return tl::square(d * get<0>(a) - get<0>(b));
  else if constexpr (K == 2)
    return -(d - get<0>(a)) * get<0>(b);
  else if constexpr (K == 3)
    return (get<0>(a) - d) / get<0>(b) + get<1>(a) * get<1>(b);
  else if constexpr (K == 4)
    return tl::sin(d * get<0>(a)) / get<0>(b);
  else if constexpr (K == 5)
    return tl::square(d - get<0>(a)) * get<0>(b) - d / get<1>(b);
  else
    return tl::exp(-(d - get<0>(a)) * get<0>(b));
};
constexpr int term_kinds = 7;
constexpr std::size_t term_uses = 3;     // the most uses of a or of b in one term (b in term 0)
constexpr std::size_t loop_points = 40;  // at least fuse_min_elements (sweep/fused.hpp), not whole batches
using loop_data = tl::vector<double, loop_points>;
/// The parameter the sums over indices and pairs read by index: x[i] and x[i + 1] for up to 300 indices.
using index_vector = tl::vector<double, 301>;

struct counters {
  long inputs = 0, matrices = 0, loops = 0, sums_over_rows = 0, index_sums = 0, steps = 0, raw = 0, compared = 0,
       skipped = 0, out_of_range = 0;
  std::size_t steps_run = 0;                              // of the steps: the steps run, all inputs together
  std::size_t rows = 0, most_rows = 0, past_a_batch = 0;  // of the sums over rows: rows summed, the
                                                          // longest, sums of more rows than a batch
  ~counters() {
    if (inputs == 0) return;
    std::fprintf(
        stderr,
        "gradient_fuzz: %ld inputs (%ld of numbers, %ld of matrices, %ld loops over data, %ld sums over rows, "
        "%ld sums over indices or pairs, %ld runs of steps; %ld raw; %zu rows summed, at most %zu at once, %zu "
        "sums past a SIMD batch; %zu steps run), %ld gradient components compared with finite differences, "
        "%ld skipped; %ld components apart from var.backward()'s or the terms' out of the normal range\n",
        inputs, inputs - matrices - loops - sums_over_rows - index_sums - steps, matrices, loops, sums_over_rows,
        index_sums, steps, raw, rows, most_rows, past_a_batch, steps_run, compared, skipped, out_of_range);
    if (compared + skipped >= 1000 && compared < skipped) {
      std::fprintf(stderr, "gradient_fuzz: most components were skipped, the check is close to vacuous\n");
      std::abort();
    }
  }
} stats;

/// Reads the bytes in order; past the end, zeros.
struct reader {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint8_t byte() { return at < size ? data[at++] : 0; }
  double raw() {
    std::array<std::uint8_t, 8> b{};
    for (auto& x : b) x = byte();
    double d;
    std::memcpy(&d, b.data(), sizeof d);
    return d;
  }
  /// In [-4, 4], moved off the grid of 2-byte values by less than its spacing, by a different amount for
  /// each input: no input, sum or difference of inputs is then exactly 0 or a tie, where the derivative
  /// is a convention (abs at 0, the first argument of min at a tie) that differences cannot check.
  double mapped() {
    const unsigned u = static_cast<unsigned>(byte()) << 8 | byte();
    return -4.0 + 8.0 * u / 65536.0 + 1e-6 * std::sqrt(2.0 + static_cast<double>(mapped_count++));
  }
  int mapped_count = 0;
};

/// Equal up to rounding (1e-13 relative, or a few subnormal steps), NaN matching NaN.
bool same(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b)) ||
         std::abs(a - b) <= 1e-13 * std::max(std::abs(a), std::abs(b)) + 4 * std::numeric_limits<double>::denorm_min();
}

/// NaN against an infinity: the chain rule's products grouped two ways, one of which underflows to 0
/// before it meets an infinite derivative. A cut (expr/cut.hpp; the numbers' function is deeper than
/// cut_depth) sends g times d value / d leaf, where backward() multiplies g along the chain: for
/// atan(t) (cbrt(z) t) at t = sin(4.9e-323), z = 0, d/dz is atan(t) (t cbrt'(0)) = atan(t) inf = inf
/// through the cut, and (atan(t) t) cbrt'(0) = 0 inf = NaN through backward(). Both are IEEE results of
/// the same derivative, whose exact value is +inf.
bool regrouped_at_infinity(double a, double b) {
  return (std::isnan(a) && std::isinf(b)) || (std::isinf(a) && std::isnan(b));
}

/// The same regrouping where an intermediate leaves the normal range, which raw inputs reach:
/// - below it, a subnormal keeps fewer bits the smaller it is. For t = tanh(x) - y = 4.9e-323 (10
///   subnormal steps) and z = 0, d/dz of atan2(cbrt(t), sigmoid(z) t) is g (t sigmoid'(z)) through the
///   cut, where t / 4 = 2.5 steps rounds to 2, and (g t) sigmoid'(z) through backward(): -2.69e-216
///   against -3.37e-216;
/// - above it, a partial derivative overflows. For max(abs(t), cbrt(z) t) at t = 4.1e204,
///   z = 6.8e-320, the second operand's adjoint is 0 and t cbrt'(z) = 4.1e204 * 2e212 = inf: 0 inf = NaN
///   through the cut, (0 t) cbrt'(z) = 0 through backward().
/// Taken for this only for raw inputs and after the processor raised its underflow or overflow flag,
/// cleared before the sweeps; counted. (Mapped inputs, in [-4, 4], never are.)
bool left_normal_range() { return std::fetestexcept(FE_UNDERFLOW | FE_OVERFLOW) != 0; }

[[noreturn]] void fail(const char* what, const choices& c, const double* x, std::size_t n, double got,
                       double expected) {
  const auto name = [](std::string_view n) { return static_cast<int>(n.size()); };
  const std::string_view u0 = registry::unary_table[c.u0].name, u1 = registry::unary_table[c.u1].name,
                         u2 = registry::unary_table[c.u2].name, b0 = registry::binary_table[c.b0].name,
                         b1 = registry::binary_table[c.b1].name;
  std::fprintf(stderr, "gradient_fuzz: %s; operations %.*s %.*s %.*s %.*s %.*s (bytes %d %d %d %d %d); inputs", what,
               name(u0), u0.data(), name(u1), u1.data(), name(u2), u2.data(), name(b0), b0.data(), name(b1), b1.data(),
               c.bytes[0], c.bytes[1], c.bytes[2], c.bytes[3], c.bytes[4]);
  for (std::size_t i = 0; i < n; ++i) std::fprintf(stderr, " %.17g", x[i]);
  std::fprintf(stderr, "; got %.17g, expected %.17g\n", got, expected);
  std::abort();
}

/// The gradient component of f (a function of the flat inputs) at x[i], against finite differences.
template <class F, std::size_t N>
void compare_component(const F& flat, const choices& c, const std::array<double, N>& x, std::size_t i, double ad) {
  const auto along = [&](double xi) {
    std::array<double, N> moved = x;
    moved[i] = xi;
    return flat(moved);
  };
  const fd::estimate d = fd::derivative_and_error(along, x[i]);
  const double scale = std::max({1.0, std::abs(ad), std::abs(d.value)});
  // A kink near x (a tie or near-tie of min, max or max_element; abs near 0) that every step of the
  // differences crosses, so that they agree with each other and not with the derivative at x. For a
  // smooth f the right slope minus the left one at step k is f''(x) k + O(k^3): it shrinks tenfold
  // with k. A kink within k adds its jump in slope at both steps, so ten times the difference at k / 10
  // no longer matches the one at k. Compared at k = 1e-4 and 1e-5 (relative to x) against 1e-5 and
  // 1e-6, beyond f's rounding amplified by the smaller step.
  const double f0 = flat(x);
  const auto spread = [&](double k) { return (along(x[i] + k) - f0) / k - (f0 - along(x[i] - k)) / k; };
  bool kink = false;
  for (const double k : {1e-4, 1e-5}) {
    const double step = k * std::max(1.0, std::abs(x[i]));
    const double rounding = 10 * 64 * std::numeric_limits<double>::epsilon() * std::abs(f0) / (step / 10);
    kink = kink || std::abs(spread(step) - 10 * spread(step / 10)) > 1e-7 * scale + rounding;
  }
  if (!std::isfinite(ad) || !std::isfinite(d.value) || d.error > 1e-7 * scale || kink) {
    ++stats.skipped;
    return;
  }
  ++stats.compared;
  if (std::abs(ad - d.value) > 1e-6 * scale)
    fail("gradient differs from finite differences", c, x.data(), N, ad, d.value);
}

void numbers_case(const choices& c, const std::array<double, 3>& x, bool check_fd) {
  const auto f = numbers(c);
  std::feclearexcept(FE_UNDERFLOW | FE_OVERFLOW);
  const auto [value, g] = tl::value_and_grad(f)(x[0], x[1], x[2]);
  const double plain = f(x[0], x[1], x[2]);
  if (!same(value, plain)) fail("value differs from the plain evaluation", c, x.data(), 3, value, plain);
  const std::array<double, 3> ad{std::get<0>(g), std::get<1>(g), std::get<2>(g)};
  tl::var<double> v0{x[0]}, v1{x[1]}, v2{x[2]};
  f(v0, v1, v2).backward();
  const std::array<double, 3> imperative{v0.grad(), v1.grad(), v2.grad()};
  for (std::size_t i = 0; i < 3; ++i) {
    if (same(ad[i], imperative[i]) || regrouped_at_infinity(ad[i], imperative[i])) continue;
    if (check_fd || !left_normal_range())
      fail("grad differs from var.backward()", c, x.data(), 3, ad[i], imperative[i]);
    ++stats.out_of_range;
  }
  if (!check_fd || !std::isfinite(value)) return;
  const auto flat = [&f](const std::array<double, 3>& p) { return f(p[0], p[1], p[2]); };
  // f's own rounding, measured against f on long double at x and at the widest steps of the
  // differences: where an intermediate absorbs most of a small addend, it exceeds the few roundings of
  // f that the differences allow for, and they see a staircase. In log10(1 + t t) at t = 4.1e-8
  // (t = pow(1 + sinh(5 tanh(x))^2, 2 tanh(y)) at x = -2.62, y = -4), 1 + t t is 1 + 8 ulps for the
  // exact 1 + 7.66 ulps at every step: the differences see that path flat, -6.29e-4 for d/dx, where
  // the chain rule through it gives 5.75e-4 (exactly 6.02e-4; f is 1.4924e-3 on doubles, 1.4281e-3
  // exactly). A component is skipped, and counted, where that rounding divided by the smallest step of
  // the differences (fd::derivative_and_error's h / 100) reaches their tolerance.
  const auto precise = [&f](const std::array<double, 3>& p) {
    return f(static_cast<long double>(p[0]), static_cast<long double>(p[1]), static_cast<long double>(p[2]));
  };
  for (std::size_t i = 0; i < 3; ++i) {
    const double h = fd::step_at(x[i]);
    double rounding = 0;
    for (const double at : {x[i] - h, x[i], x[i] + h}) {
      std::array<double, 3> p = x;
      p[i] = at;
      rounding = std::max(rounding, static_cast<double>(std::abs(flat(p) - precise(p))));
    }
    if (!(rounding / (h / 100) <= 1e-7 * std::max(1.0, std::abs(ad[i])))) {
      ++stats.skipped;
      continue;
    }
    compare_component(flat, c, x, i, ad[i]);
  }
}

void matrices_case(const choices& c, const std::array<double, 7>& x, bool check_fd) {
  using M = tl::matrix<double, 2, 2>;
  using V = tl::vector<double, 2>;
  const auto unflatten = [](const std::array<double, 7>& p) {
    return std::tuple{M{{p[0], p[1]}, {p[2], p[3]}}, V{p[4], p[5]}, p[6]};
  };
  const auto f = matrices(c);
  const auto [a, v, s] = unflatten(x);
  const auto [value, g] = tl::value_and_grad(f)(a, v, s);
  const double plain = f(a, v, s);
  if (!same(value, plain)) fail("value differs from the plain evaluation", c, x.data(), 7, value, plain);
  if (!check_fd || !std::isfinite(value)) return;
  const auto& [ga, gv, gs] = g;
  const std::array<double, 7> ad{ga(0, 0), ga(0, 1), ga(1, 0), ga(1, 1), gv[0], gv[1], gs};
  const auto flat = [&](const std::array<double, 7>& p) { return std::apply(f, unflatten(p)); };
  for (std::size_t i = 0; i < 7; ++i) compare_component(flat, c, x, i, ad[i]);
}

/// run_time_matrices of a tl::dynamic copy of a against the fixed a: the same value and gradients, to
/// the roundings of sums taken in another order, where the fixed run is finite (mapped inputs); every
/// input runs it, so that AddressSanitizer watches the reads of the copy, which holds exactly 4 elements.
void run_time_matrices_case(const choices& c, const std::array<double, 7>& x, bool compare) {
  using M = tl::matrix<double, 2, 2>;
  const M a{{x[0], x[1]}, {x[2], x[3]}};
  const tl::matrix<double, tl::dynamic, tl::dynamic> dynamic_a{{x[0], x[1]}, {x[2], x[3]}};
  const tl::vector<double, 2> v{x[4], x[5]};
  const auto f = run_time_matrices(c);
  const auto [value, g] = tl::value_and_grad(f)(a, v, x[6]);
  const auto [run_time_value, run_time_g] = tl::value_and_grad(f)(dynamic_a, v, x[6]);
  const auto& [ga, gv, gs] = g;
  const auto& [rga, rgv, rgs] = run_time_g;
  const std::array<double, 8> fixed{value, ga(0, 0), ga(0, 1), ga(1, 0), ga(1, 1), gv[0], gv[1], gs};
  const std::array<double, 8> run_time{run_time_value, rga(0, 0), rga(0, 1), rga(1, 0), rga(1, 1), rgv[0], rgv[1], rgs};
  if (!compare) return;
  for (const double e : fixed)
    if (!std::isfinite(e) || std::abs(e) > 1e100) return;
  for (std::size_t i = 0; i < fixed.size(); ++i)
    if (!(std::abs(run_time[i] - fixed[i]) <= 1e-9 * std::max({1.0, std::abs(fixed[i]), std::abs(run_time[i])})))
      fail(i == 0 ? "the value of a tl::dynamic matrix differs from the fixed one's"
                  : "a gradient of a tl::dynamic matrix differs from the fixed one's",
           c, x.data(), 7, run_time[i], fixed[i]);
}

/// The sums over the points of the addends of the gradient in a and b, and of their magnitudes: each
/// point's term (at_point(i, a uses, b uses)) differentiated on numbers alone, one argument per use of
/// a and b, whose partials are the addends that the chain rule sums. Divided by the points for a mean.
struct addends {
  std::array<double, 2> sum{}, magnitude{};
};
template <class AtPoint>
addends gradient_addends(std::size_t points, const AtPoint& at_point, double a, double b, bool mean) {
  addends r;
  for (std::size_t i = 0; i < points; ++i) {
    const auto by_use = tl::grad(
        [&at_point, i](const auto& a0, const auto& a1, const auto& a2, const auto& b0, const auto& b1, const auto& b2) {
          return at_point(i, std::tie(a0, a1, a2), std::tie(b0, b1, b2));
        })(a, a, a, b, b, b);
    std::apply(
        [&](auto... addend) {
          const std::array<double, 2 * term_uses> g{addend...};
          for (std::size_t j = 0; j < g.size(); ++j) {
            r.sum[j / term_uses] += g[j];
            r.magnitude[j / term_uses] += std::abs(g[j]);
          }
        },
        by_use);
  }
  if (mean)
    for (std::size_t i = 0; i < 2; ++i) r.sum[i] /= double(points), r.magnitude[i] /= double(points);
  return r;
}

/// got and expected, two sums of `count` addends in some order whose magnitudes sum to `magnitude`,
/// each addend with a few roundings of its own (the chain rule's products, a function's ulps): each
/// sum within count - 1 roundings of the magnitude, and both within 2 (count + 8) of them.
bool sums_agree(double got, double expected, double magnitude, std::size_t count) {
  const double roundings = 2 * (static_cast<double>(count) + 8);
  return same(got, expected) ||
         std::abs(got - expected) <= roundings * std::numeric_limits<double>::epsilon() * magnitude +
                                         8 * std::numeric_limits<double>::denorm_min();
}

/// The gradient ad of a sum over `points` points in a = x[0] and b = x[1] against the sum of the
/// points' addends (gradient_addends), and for mapped inputs against finite differences of `plain`,
/// the function of (a, b) on doubles.
template <class Plain>
void check_summed_gradient(const choices& c, const double* x, std::size_t inputs, const std::array<double, 2>& ad,
                           const addends& reference, std::size_t points, const Plain& plain, bool check_fd) {
  for (std::size_t i = 0; i < 2; ++i) {
    if (sums_agree(ad[i], reference.sum[i], reference.magnitude[i], term_uses * points)) continue;
    // Summed in another order, a sum can overflow where the other does not: raw inputs only, counted.
    if (check_fd || !left_normal_range())
      fail("the sum's gradient differs from the sum of its terms'", c, x, inputs, ad[i], reference.sum[i]);
    ++stats.out_of_range;
  }
  if (!check_fd || !std::isfinite(plain(x[0], x[1]))) return;
  const auto flat = [&plain](const std::array<double, 2>& p) { return plain(p[0], p[1]); };
  for (std::size_t i = 0; i < 2; ++i) compare_component(flat, c, std::array<double, 2>{x[0], x[1]}, i, ad[i]);
}

/// The loop over data, term K summed (or averaged, Mean) over the points: the gradient in a and b
/// against the sum of each term's gradient on numbers.
///
/// The tolerance is a bound of the rounding error of a sum, so it scales with the addends, not with
/// the terms: a term's gradient is itself a sum over the uses of a (or b) in it, which can cancel.
/// For square(d - a) b - d / b at a = -3.5, d and b near -4, d/db = (d - a)^2 + d / b^2 is
/// 0.25 - 0.25 - 3e-6 for every point, and the loop sums the 40 (d - a)^2 and the 40 d / b^2 apart
/// (10 and -10) before it adds them. Its mean is 7e-17 from the exact one: 0.7 eps of the addends'
/// magnitudes (0.5 a point), but 1e5 eps of the terms' (3e-6 a point) and 2e-11 of the result.
/// Each term's gradient is therefore taken with one argument per use of a and b, whose partials are
/// the addends. Both sides sum the same m = term_uses n addends (n the points) in some order
/// (sums_agree).
template <int K, bool Mean>
void loop_case(const choices& c, const std::array<double, 2 + loop_points>& x, bool check_fd) {
  loop_data d;
  for (std::size_t i = 0; i < loop_points; ++i) d[i] = x[2 + i];
  const auto f = [&d](const auto& a, const auto& b) {
    if constexpr (Mean)
      return tl::mean(term<K>(d, std::tie(a, a, a), std::tie(b, b, b)));
    else
      return tl::sum(term<K>(d, std::tie(a, a, a), std::tie(b, b, b)));
  };
  std::feclearexcept(FE_UNDERFLOW | FE_OVERFLOW);
  const auto [ga, gb] = tl::grad(f)(x[0], x[1]);
  const auto at_point = [&d](std::size_t i, const auto& a, const auto& b) { return term<K>(d[i], a, b); };
  const addends reference = gradient_addends(loop_points, at_point, x[0], x[1], Mean);
  check_summed_gradient(c, x.data(), x.size(), {ga, gb}, reference, loop_points, f, check_fd);
}

/// The sum (or mean) of the `count` terms at_point(i, a uses, b uses) on doubles in a plain loop, and the
/// sum of their magnitudes.
template <bool Mean, class AtPoint>
std::array<double, 2> sum_on_doubles(std::size_t count, const AtPoint& at_point, double a, double b) {
  std::array<double, 2> s{};
  for (std::size_t i = 0; i < count; ++i) {
    const double e = at_point(i, std::tie(a, a, a), std::tie(b, b, b));
    s[0] += e;
    s[1] += std::abs(e);
  }
  if constexpr (Mean) s[0] /= double(count), s[1] /= double(count);
  return s;
}

/// The term of the sum over rows: the loop's term K of the first column, plus the second times a (a
/// use of a that no term K has).
template <int K>
constexpr auto row_term =
    [](const auto& t, const auto& y, const auto& a, const auto& b) { return term<K>(t, a, b) + y * std::get<2>(a); };

/// The sum over rows, term K summed (or averaged, Mean) over the n rows of (t, y): its value against the
/// same sum on doubles in a plain loop (plain doubles in, and value_and_grad's), its gradient in a and b
/// as the loop's.
template <int K, bool Mean>
void rows_case(const choices& c, const std::vector<double>& x, const std::vector<double>& t,
               const std::vector<double>& y, bool check_fd) {
  const std::size_t n = t.size();
  const auto f = [&t, &y](const auto& a, const auto& b) {
    const auto body = [](const auto& ti, const auto& yi, const auto& a, const auto& b) {
      return row_term<K>(ti, yi, std::tie(a, a, a), std::tie(b, b, b));
    };
    if constexpr (Mean)
      return tl::mean_over(tl::rows(t, y), body, a, b);
    else
      return tl::sum_over(tl::rows(t, y), body, a, b);
  };
  const auto at_point = [&t, &y](std::size_t i, const auto& a, const auto& b) { return row_term<K>(t[i], y[i], a, b); };
  const auto plain_sum = [&](double a, double b) { return sum_on_doubles<Mean>(n, at_point, a, b); };
  const auto plain = [&plain_sum](double a, double b) { return plain_sum(a, b)[0]; };
  std::feclearexcept(FE_UNDERFLOW | FE_OVERFLOW);
  const auto [value, g] = tl::value_and_grad(f)(x[0], x[1]);
  const double on_doubles = f(x[0], x[1]);
  const auto [expected, magnitude] = plain_sum(x[0], x[1]);
  for (const double got : {value, on_doubles}) {
    if (sums_agree(got, expected, magnitude, n)) continue;
    if (check_fd || !left_normal_range())
      fail("the sum over rows differs from the plain loop", c, x.data(), x.size(), got, expected);
    ++stats.out_of_range;
  }
  const auto [ga, gb] = g;
  const addends reference = gradient_addends(n, at_point, x[0], x[1], Mean);
  check_summed_gradient(c, x.data(), x.size(), {ga, gb}, reference, n, plain, check_fd);
}

/// Reference gradients of a sum of terms read by index: for each term, its gradient on numbers in the
/// elements it reads (d, e) and in every use of a and b (gradient_addends), added to the sums of the
/// elements' gradients and of their magnitudes.
struct element_addends {
  std::vector<double> sum, magnitude;
  explicit element_addends(std::size_t n) : sum(n), magnitude(n) {}
};

/// The term of the sums over indices and pairs: term K of the element d, plus e times a.
template <int K>
constexpr auto index_term =
    [](const auto& d, const auto& e, const auto& a, const auto& b) { return row_term<K>(d, e, a, b); };

/// The sums over indices and pairs: term K (index_term) summed, or averaged (Mean), over tl::indices(n) of
/// (x[i], x[i + 1]), or over tl::pairs(n) of (x[i] - x[j], x[j]) (Pairs), x a parameter vector beside a
/// and b. Its value against the same sum in a plain loop, its gradient in a and b as the loop's, and in x
/// against the terms' gradients in their elements added up by hand: an element no term reads has +0.
template <int K, bool Mean, bool Pairs>
void indices_case(const choices& c, const std::vector<double>& input, std::size_t n, bool check_fd) {
  index_vector xv{};
  for (std::size_t e = 0; e < index_vector::size(); ++e) xv[e] = input[2 + e];
  const std::size_t terms = Pairs ? n * (n - (n > 0 ? 1 : 0)) / 2 : n;
  const auto f = [n](const auto& a, const auto& b, const auto& x) {
    if constexpr (Pairs) {
      const auto body = [](std::size_t i, std::size_t j, const auto& a, const auto& b, const auto& x) {
        return index_term<K>(x[i] - x[j], x[j], std::tie(a, a, a), std::tie(b, b, b));
      };
      if constexpr (Mean)
        return tl::mean_over(tl::pairs(n), body, a, b, x);
      else
        return tl::sum_over(tl::pairs(n), body, a, b, x);
    } else {
      const auto body = [](std::size_t i, const auto& a, const auto& b, const auto& x) {
        return index_term<K>(x[i], x[i + 1], std::tie(a, a, a), std::tie(b, b, b));
      };
      if constexpr (Mean)
        return tl::mean_over(tl::indices(n), body, a, b, x);
      else
        return tl::sum_over(tl::indices(n), body, a, b, x);
    }
  };
  // Term t's two elements (d, e) as element positions and values.
  const auto elements = [&](std::size_t t) {
    if constexpr (!Pairs) return std::array<std::size_t, 2>{t, t + 1};
    std::size_t i = 0, first = 0;
    while (first + (n - 1 - i) <= t) first += n - 1 - i, ++i;
    return std::array<std::size_t, 2>{i, i + 1 + (t - first)};
  };
  // Term t in its elements d and e and in a and b.
  const auto term_at = [](const auto& d, const auto& e, const auto& a, const auto& b) {
    if constexpr (Pairs)
      return index_term<K>(d - e, e, a, b);
    else
      return index_term<K>(d, e, a, b);
  };
  const auto at_point = [&](std::size_t t, const auto& a, const auto& b) {
    const auto [i, j] = elements(t);
    return term_at(xv[i], xv[j], a, b);
  };
  const auto plain_sum = [&](double a, double b) { return sum_on_doubles<Mean>(terms, at_point, a, b); };
  std::feclearexcept(FE_UNDERFLOW | FE_OVERFLOW);
  const auto [value, g] = tl::value_and_grad(f)(input[0], input[1], xv);
  const auto [expected, magnitude] = plain_sum(input[0], input[1]);
  if (!sums_agree(value, expected, magnitude, terms)) {
    if (check_fd || !left_normal_range())
      fail("the sum over indices differs from the plain loop", c, input.data(), input.size(), value, expected);
    ++stats.out_of_range;
  }
  const auto& [ga, gb, gx] = g;
  const addends reference = gradient_addends(terms, at_point, input[0], input[1], Mean);
  const auto plain = [&plain_sum](double a, double b) { return plain_sum(a, b)[0]; };
  check_summed_gradient(c, input.data(), input.size(), {ga, gb}, reference, terms, plain, check_fd);
  // The elements' gradients: each term's in (d, e), sent to the elements it read. The magnitude counts
  // the chain rule's addends within a term: a pair's term reads x[j] twice (in x[i] - x[j] and as
  // itself), and the two partials can cancel to far below either, which the sum then adds apart.
  element_addends by_element(index_vector::size());
  const double a = input[0], b = input[1];
  for (std::size_t t = 0; t < terms; ++t) {
    const auto [i, j] = elements(t);
    const auto [gd, ge] = tl::grad([&](const auto& d, const auto& e) {
      return term_at(d, e, std::tie(a, a, a), std::tie(b, b, b));
    })(xv[i], xv[j]);
    by_element.sum[i] += gd;
    by_element.sum[j] += ge;
    if constexpr (Pairs) {
      const auto [g_difference, g_second] = tl::grad([&](const auto& difference, const auto& second) {
        return index_term<K>(difference, second, std::tie(a, a, a), std::tie(b, b, b));
      })(xv[i] - xv[j], xv[j]);
      by_element.magnitude[i] += std::abs(g_difference);
      by_element.magnitude[j] += std::abs(g_difference) + std::abs(g_second);
    } else {
      by_element.magnitude[i] += std::abs(gd);
      by_element.magnitude[j] += std::abs(ge);
    }
  }
  if constexpr (Mean)  // over no terms, 0 / 0: NaN in every element, as the mean itself
    for (std::size_t e = 0; e < index_vector::size(); ++e)
      by_element.sum[e] /= double(terms), by_element.magnitude[e] /= double(terms);
  for (std::size_t e = 0; e < index_vector::size(); ++e) {
    if (sums_agree(gx[e], by_element.sum[e], by_element.magnitude[e], 2 * terms + 2)) continue;
    if (check_fd || !left_normal_range())
      fail("an element's gradient differs from the sum of the terms' gradients", c, input.data(), input.size(), gx[e],
           by_element.sum[e]);
    ++stats.out_of_range;
  }
  // The same sum with x a tl::vector<double, tl::dynamic> of exactly the elements its terms read, so
  // that AddressSanitizer sees a read past its end: the fixed vector's value and gradients, bit for bit
  // (NaN matching NaN), since one loop with one grouping serves both.
  const std::size_t read = Pairs ? n : (n == 0 ? 0 : n + 1);
  tl::vector<double, tl::dynamic> run_time_x(read);
  for (std::size_t e = 0; e < read; ++e) run_time_x[e] = xv[e];
  const auto [run_time_value, run_time_g] = tl::value_and_grad(f)(input[0], input[1], run_time_x);
  const auto& [run_time_ga, run_time_gb, run_time_gx] = run_time_g;
  const auto same_number = [](double u, double v) {
    return (std::isnan(u) && std::isnan(v)) || std::memcmp(&u, &v, sizeof(double)) == 0;
  };
  const auto check_same = [&](double got, double expected) {
    if (!same_number(got, expected))
      fail("the sum over a tl::dynamic vector differs from the same sum over a fixed one", c, input.data(),
           input.size(), got, expected);
  };
  check_same(run_time_value, value);
  check_same(run_time_ga, ga);
  check_same(run_time_gb, gb);
  if (run_time_gx.size() != read)
    fail("the gradient of a tl::dynamic vector has another size", c, input.data(), input.size(),
         double(run_time_gx.size()), double(read));
  for (std::size_t e = 0; e < read; ++e) check_same(run_time_gx[e], gx[e]);
}

/// The steps: s(k+1) = s(k) + h term K(s(k), a, b), from s(0) = x, for n steps, by tl::iterate with
/// every state stored and with checkpoints<S> (S of 1 or 3: binomial schedules with many recomputed
/// steps). The value equals the same loop on doubles (the same operations: to the bit), the two
/// policies' gradients are the same to the bit, and the gradient in (x, a, b) equals the reverse loop
/// written by hand from each step's gradient on numbers (one argument per use of a and b), within a few
/// roundings per step of the magnitudes of the addends, which that loop carries beside the adjoint.
constexpr double step_size = 1.0 / 64;
template <int K>
constexpr auto euler_step = [](const auto& s, std::size_t, const auto& a, const auto& b) {
  return s + step_size * term<K>(s, std::tie(a, a, a), std::tie(b, b, b));
};
template <int K, std::size_t S>
void steps_case(const choices& c, const std::array<double, 3>& input, std::size_t n, bool check_fd) {
  const auto stored = [n](const auto& x, const auto& a, const auto& b) {
    return tl::iterate(n, x, euler_step<K>, a, b);
  };
  const auto kept = [n](const auto& x, const auto& a, const auto& b) {
    return tl::iterate(tl::checkpoints<S>{}, n, x, euler_step<K>, a, b);
  };
  std::feclearexcept(FE_UNDERFLOW | FE_OVERFLOW);
  const auto [value, g] = tl::value_and_grad(stored)(input[0], input[1], input[2]);
  const auto [value_kept, g_kept] = tl::value_and_grad(kept)(input[0], input[1], input[2]);
  std::vector<double> s(n + 1);
  s[0] = input[0];
  for (std::size_t k = 0; k < n; ++k) s[k + 1] = euler_step<K>(s[k], k, input[1], input[2]);
  for (const double got : {value, value_kept, stored(input[0], input[1], input[2])})
    if (!same(got, s[n])) fail("the state after n steps differs from the plain loop", c, input.data(), 3, got, s[n]);
  const std::array<double, 3> ad{std::get<0>(g), std::get<1>(g), std::get<2>(g)},
      ad_kept{std::get<0>(g_kept), std::get<1>(g_kept), std::get<2>(g_kept)};
  // Equal to the bit, but a NaN matches any NaN: its sign and payload are those of whichever NaN operand
  // an operation met first, which IEEE leaves open, and the two schedules group the chain rule's products
  // apart (NaN inputs gave -nan through one and nan through the other).
  for (std::size_t i = 0; i < 3; ++i)
    if (!(std::isnan(ad[i]) && std::isnan(ad_kept[i])) && std::memcmp(&ad[i], &ad_kept[i], sizeof(double)) != 0)
      fail("checkpoints give another gradient than stored states", c, input.data(), 3, ad_kept[i], ad[i]);
  // The reverse loop by hand: the adjoint and the magnitude of its addends, step by step.
  double adjoint = 1, adjoint_magnitude = 1;
  std::array<double, 3> sum{}, magnitude{};
  for (std::size_t k = n; k-- > 0;) {
    // The step's increment h term(s, a, b) apart from s itself: the adjoint's addends are g and g times
    // its partial in s.
    const auto partials = tl::grad([](const auto& sk, const auto& a0, const auto& a1, const auto& a2, const auto& b0,
                                      const auto& b1, const auto& b2) {
      return step_size * term<K>(sk, std::tie(a0, a1, a2), std::tie(b0, b1, b2));
    })(s[k], input[1], input[1], input[1], input[2], input[2], input[2]);
    std::apply(
        [&](double ds, auto... uses) {
          const std::array<double, 6> u{uses...};
          for (std::size_t j = 0; j < 6; ++j) {
            sum[1 + j / 3] += adjoint * u[j];
            magnitude[1 + j / 3] += adjoint_magnitude * std::abs(u[j]);
          }
          adjoint += adjoint * ds;
          adjoint_magnitude *= 1 + std::abs(ds);
        },
        partials);
  }
  sum[0] = adjoint;
  magnitude[0] = adjoint_magnitude;
  for (std::size_t i = 0; i < 3; ++i) {
    if (sums_agree(ad[i], sum[i], magnitude[i], 8 * n + 8)) continue;
    // Past the largest double, the two loops meet infinities in other orders (inf - inf in one, inf in
    // the other): counted, not compared.
    if (!std::isfinite(magnitude[i])) {
      ++stats.out_of_range;
      continue;
    }
    if (check_fd || !left_normal_range())
      fail("the gradient of the steps differs from the reverse loop by hand", c, input.data(), 3, ad[i], sum[i]);
    ++stats.out_of_range;
  }
  if (!check_fd || !std::isfinite(value)) return;
  const auto flat = [n](const std::array<double, 3>& p) {
    double x = p[0];
    for (std::size_t k = 0; k < n; ++k) x = euler_step<K>(x, k, p[1], p[2]);
    return x;
  };
  for (std::size_t i = 0; i < 3; ++i) compare_component(flat, c, input, i, ad[i]);
}

/// run.template operator()<K, Mean>() for term K = c.b0 (of term_kinds), summed, or averaged where
/// c.b1 is odd.
template <int K = 0, class Run>
void for_term(const choices& c, const Run& run) {
  if constexpr (K < term_kinds) {
    if (c.among(3, term_kinds) != K) return for_term<K + 1>(c, run);
    if (c.among(4, 2) != 0)
      run.template operator()<K, true>();
    else
      run.template operator()<K, false>();
  }
}

/// Byte 0's bits: the loop over data where both loop bits are set, the sum over rows where the rows bit
/// is too; else matrices where the matrices bit is, numbers where it is not. Raw doubles where the raw
/// bit is set, else mapped ones.
constexpr std::uint8_t loop_bits = 0x30, rows_bit = 0x40, matrices_bit = 0x01, raw_bit = 0x02, indexed_bit = 0x08;
/// The most steps of the steps, and the most indices of the sums over indices and over pairs.
constexpr unsigned max_steps = 300, max_pair_indices = 40;
/// The most rows of the sum over rows: many SIMD batches and a remainder, from two bytes.
constexpr unsigned max_rows = 300;
/// The rows of one SIMD batch, for the count of sums past one.
#if TAPELESS_SIMD
constexpr std::size_t batch_rows = tl::detail::simd::width<double>;
#else
constexpr std::size_t batch_rows = 1;
#endif

/// The bits of byte 0 that choose the family the mutator keeps to (TAPELESS_FUZZ_FAMILY and _MODE):
/// cleared, then set.
struct family_bits {
  std::uint8_t clear = 0, set = 0;
} kept_family;

/// Adds the bits that the value of the environment variable (TAPELESS_FUZZ_FAMILY or _MODE) names to
/// kept_family; false for a value it does not know.
bool keep_family_of(const char* variable, std::initializer_list<std::tuple<std::string_view, family_bits>> values) {
  const char* chosen = std::getenv(variable);
  if (chosen == nullptr || *chosen == 0) return true;
  for (const auto& [name, bits] : values)
    if (name == chosen) {
      kept_family.clear |= bits.clear;
      kept_family.set |= bits.set;
      return true;
    }
  std::fprintf(stderr, "gradient_fuzz: %s=%s is none of", variable, chosen);
  for (const auto& value : values) {
    const std::string_view name = std::get<0>(value);
    std::fprintf(stderr, " %.*s", static_cast<int>(name.size()), name.data());
  }
  std::fprintf(stderr, "\n");
  return false;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  constexpr std::uint8_t not_loop = loop_bits & 0x10;  // one loop bit cleared
  const bool known = keep_family_of("TAPELESS_FUZZ_FAMILY", {{"numbers", {not_loop | matrices_bit, 0}},
                                                             {"matrices", {not_loop, matrices_bit}},
                                                             {"loop", {rows_bit | indexed_bit, loop_bits}},
                                                             {"rows", {indexed_bit, loop_bits | rows_bit}},
                                                             {"steps", {rows_bit, loop_bits | indexed_bit}},
                                                             {"indices", {0, loop_bits | rows_bit | indexed_bit}}}) &&
                     keep_family_of("TAPELESS_FUZZ_MODE", {{"raw", {0, raw_bit}}, {"mapped", {raw_bit, 0}}});
  if (!known) std::exit(2);
  return 0;
}

/// libFuzzer's own mutations, then byte 0 moved into the chosen family.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned /*seed*/) {
  size = LLVMFuzzerMutate(data, size, max_size);
  if ((kept_family.clear | kept_family.set) != 0 && max_size > 0) {
    if (size == 0) data[size++] = 0;
    data[0] = static_cast<std::uint8_t>((data[0] & ~kept_family.clear) | kept_family.set);
  }
  return size;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader in{data, size};
  const std::uint8_t head = in.byte();
  const bool of_loop = (head & loop_bits) == loop_bits, of_rows = of_loop && (head & rows_bit) != 0,
             of_matrices = (head & matrices_bit) != 0, raw = (head & raw_bit) != 0;
  std::array<std::uint8_t, 5> operation_bytes{};
  for (auto& b : operation_bytes) b = in.byte();
  const choices c{operation_bytes};
  const auto next = [&] { return raw ? in.raw() : in.mapped(); };
  ++stats.inputs;
  stats.raw += raw ? 1 : 0;
  if (of_loop && (head & indexed_bit) != 0 && of_rows) {
    // a, b, the elements of x; the count, its top bit for pairs.
    const unsigned count = static_cast<unsigned>(in.byte()) << 8 | in.byte();
    const bool pairs = (count & 0x8000) != 0;
    const std::size_t n = (count & 0x7fff) % ((pairs ? max_pair_indices : max_rows) + 1);
    ++stats.index_sums;
    std::vector<double> x(2 + index_vector::size());
    for (auto& e : x) e = next();
    for_term(c, [&]<int K, bool Mean>() {
      if (pairs)
        indices_case<K, Mean, true>(c, x, n, !raw);
      else
        indices_case<K, Mean, false>(c, x, n, !raw);
    });
  } else if (of_loop && (head & indexed_bit) != 0) {
    const unsigned count = static_cast<unsigned>(in.byte()) << 8 | in.byte();
    const std::size_t n = count % (max_steps + 1);
    ++stats.steps;
    stats.steps_run += n;
    std::array<double, 3> x{};
    for (auto& e : x) e = next();
    for_term(c, [&]<int K, bool Wide>() {
      if constexpr (Wide)
        steps_case<K, 3>(c, x, n, !raw);
      else
        steps_case<K, 1>(c, x, n, !raw);
    });
  } else if (of_rows) {
    ++stats.sums_over_rows;
    const std::size_t n = (static_cast<unsigned>(in.byte()) << 8 | in.byte()) % (max_rows + 1);
    // a, b, then the columns: all printed where a check fails. The columns are vectors of n elements
    // exactly, so that a read past either end is AddressSanitizer's to see.
    stats.rows += n;
    stats.most_rows = std::max(stats.most_rows, n);
    stats.past_a_batch += n > batch_rows ? 1 : 0;
    std::vector<double> x(2 + 2 * n);
    for (auto& e : x) e = next();
    const std::vector<double> t(x.begin() + 2, x.begin() + 2 + static_cast<std::ptrdiff_t>(n)),
        y(x.begin() + 2 + static_cast<std::ptrdiff_t>(n), x.end());
    for_term(c, [&]<int K, bool Mean>() { rows_case<K, Mean>(c, x, t, y, !raw); });
  } else if (of_loop) {
    ++stats.loops;
    std::array<double, 2 + loop_points> x{};
    for (auto& e : x) e = next();
    for_term(c, [&]<int K, bool Mean>() { loop_case<K, Mean>(c, x, !raw); });
  } else if (of_matrices) {
    ++stats.matrices;
    std::array<double, 7> x{};
    for (auto& e : x) e = next();
    matrices_case(c, x, !raw);
    run_time_matrices_case(c, x, !raw);
  } else {
    std::array<double, 3> x{};
    for (auto& e : x) e = next();
    numbers_case(c, x, !raw);
  }
  return 0;
}
