// SPDX-License-Identifier: BSL-1.0
// tapeless/transforms/sparse_derivatives.hpp: hessian_pattern and jacobian_pattern, which entries of a
// derivative matrix can be nonzero, and sparse_hessian and sparse_jacobian, which compute those
// entries alone: term by term where f is a sum of elementwise terms over parts of its argument, else
// in as many directions as a coloring of the pattern has colors.
//
// The pattern is found by the engine itself: f (for a Jacobian) or its reverse sweep (for a Hessian)
// runs once with dual numbers whose tangents are sets of argument elements (math/dependencies.hpp), so
// every operation that has a forward-mode rule has a pattern rule, and the pattern of a Hessian is the
// structure forward over reverse sees. It is structural: a number times a set is the set, whatever the
// number, and a branch keeps the sets of both sides, so it holds at every point; it is found at a
// point away from the values that rules treat apart (detail::pattern_point). sparse_hessian and
// sparse_jacobian find it in a constant expression, from f's type and x's type, so that the pattern,
// its coloring (matrix/column_coloring.hpp) and the positions of the values are constants of the
// result's type. Where the types show f to be a sum of elementwise terms (sweep/elementwise_terms.hpp),
// so are the places of each term's local derivatives among the values (term_positions) and the order
// of their writes (write_plan), and each element's derivatives are added into place. Else one sweep
// in dual numbers carries one direction per color (8 at a time, detail::chunk_size), the sum of the
// unit vectors of the color's columns, and each entry is read from the direction of its column's
// color.
#pragma once

#include <tapeless/expr/concepts.hpp>
#include <tapeless/expr/in_place.hpp>
#include <tapeless/expr/leaf.hpp>
#include <tapeless/math/dependencies.hpp>
#include <tapeless/matrix/column_coloring.hpp>
#include <tapeless/matrix/sparse_matrix.hpp>
#include <tapeless/matrix/sparsity_pattern.hpp>
#include <tapeless/sweep/elementwise_terms.hpp>
#include <tapeless/transforms/blocks.hpp>
#include <tapeless/transforms/grad.hpp>
#include <tapeless/transforms/run_time_reduction.hpp>
#include <tapeless/transforms/tangent.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tapeless {

namespace detail {

/// x as dual numbers whose tangents are sets: element j depends on {j}.
template <class X>
constexpr auto dependency_seeded(const X& x) {
  return with_tangents(x, [](std::size_t j) { return dependencies<size_of<X>>::of(j); });
}

/// The pattern whose row i is the tangent of element i of v (empty where v is a plain value).
template <std::size_t N, class V>
constexpr auto pattern_of_tangents(const V& v) {
  sparsity_pattern<size_of<V>, N> p{};
  if constexpr (is_dual<scalar_of_t<V>>)
    for (std::size_t i = 0; i < size_of<V>; ++i) p.row_sets[i] = element_at(v, i).tangent;
  return p;
}

/// x as dual numbers carrying L directions, lane l the sum of the unit vectors of the columns of
/// color c0 + l.
template <std::size_t L, class X, std::size_t N>
constexpr auto color_seeded(const X& x, const column_coloring<N>& coloring, std::size_t c0) {
  using T = scalar_of_t<X>;
  return with_tangents(x, [&](std::size_t j) {
    tangents<T, L> t{};
    if (coloring.color[j] >= c0 && coloring.color[j] - c0 < L) t.lane[coloring.color[j] - c0] = T(1);
    return t;
  });
}

/// Where each value of a sparse derivative of structure S is read when directions go L to a sweep:
/// entries[start[s]] ... entries[start[s + 1] - 1] are read after sweep s, value `value` from lane
/// `lane` of the tangent of element `row` of the sweep's result. A table of the type, so that reading
/// a value costs a load and a store, not a search for its column's color.
template <class S, std::size_t L>
struct recovery_plan {
  static constexpr std::size_t nnz = S::pattern.nonzeros();
  static constexpr std::size_t sweeps = (S::coloring.count + L - 1) / L;
  struct entry {
    std::size_t value, row, lane;
  };
  struct tables {
    std::array<entry, nnz> entries{};
    std::array<std::size_t, sweeps + 1> start{};
  };
  static constexpr tables plan = [] {
    using H = sparse_matrix<double, S>;
    tables t;
    std::size_t e = 0;
    for (std::size_t s = 0; s < sweeps; ++s) {
      t.start[s] = e;
      for (std::size_t k = 0; k < nnz; ++k)
        if (const std::size_t c = S::coloring.color[H::col_index(k)]; c / L == s)
          t.entries[e++] = entry{k, H::row_index(k), c % L};
    }
    t.start[sweeps] = e;
    return t;
  }();
};

template <class X>
inline constexpr bool fixed_shape_argument = Real<X> || Matrix<X>;

/// The point at which a pattern is found: its elements are distinct numbers between 0.5 and 0.75,
/// inside the domain of most functions and away from the values their rules treat apart (0, where
/// hypot's adjoint is 0; 1; a tie between two elements). The sets ignore values, and a branch keeps
/// both sides, so the point matters only there.
template <class X>
constexpr X pattern_point() {
  X x{};
  for (std::size_t j = 0; j < size_of<X>; ++j) element_at(x, j) = 0.5 + 0.25 * double((j * 40503U) % 65536U) / 65536.0;
  return x;
}

/// The pattern of the Hessian of f at x (both triangles): row i is the set of elements that the
/// derivative along element i depends on, from one reverse sweep in sets.
template <class F, class X>
constexpr auto hessian_pattern_at(const F& f, const X& x) {
  const auto g = gradient_transform<F, false, false>{f}(dependency_seeded(x));
  return symmetric_closure(pattern_of_tangents<size_of<X>>(g));
}

/// The pattern of the Jacobian of f at x: row i is the set of elements that element i of f depends on.
template <class F, class X>
constexpr auto jacobian_pattern_at(const F& f, const X& x) {
  return pattern_of_tangents<size_of<X>>(value_of_result(std::invoke(f, dependency_seeded(x))));
}

/// The pattern of f's Hessian (Hessian = true) or Jacobian for an argument of type X.
template <bool Hessian, class X, class F>
constexpr auto derivative_pattern(const F& f) {
  if constexpr (Hessian)
    return hessian_pattern_at(f, pattern_point<X>());
  else
    return jacobian_pattern_at(f, pattern_point<X>());
}

/// What a sparse derivative of f at an argument of type X is made of: its pattern and the coloring of
/// its columns, constants computed from f's type (F{}) and X.
template <class F, class X, bool Hessian>
struct derivative_structure {
  static constexpr auto pattern = derivative_pattern<Hessian, X>(F{});
  static constexpr auto coloring = color_columns(pattern);
};

/// The expression f builds of its argument of type X, the leaf of slot 0.
template <class F, class X>
using expression_of_t = std::remove_cvref_t<std::invoke_result_t<const F&, const argument<0, X>&>>;

/// A position among the values of a sparse derivative, or none.
inline constexpr std::uint32_t no_position = ~std::uint32_t{0};

/// Where entry (i, j) of the pattern of S is among the values, or no_position.
template <class S>
constexpr std::uint32_t position_in(std::size_t i, std::size_t j) {
  using H = sparse_matrix<double, S>;
  const std::size_t k = H::position(i, j);
  return k == H::nonzeros() ? no_position : static_cast<std::uint32_t>(k);
}

/// The gathered formula of term Term of the sum of terms Root (Hessian), or Root itself.
template <class Root, bool Hessian, std::size_t Term>
struct gathered_formula_of {
  using type = term_at_t<Term, terms_of_t<Root>>;
};
template <class Root, std::size_t Term>
struct gathered_formula_of<Root, false, Term> {
  using type = Root;
};

/// Where the local derivatives of one gathered formula E of f go among the values of a sparse
/// derivative of structure S: the Hessian's (Term: the term of f's sum of terms) or the Jacobian's (E
/// is f's result). The element of the argument each input slot reads at each element of E is found
/// from the sets of f's expression in dependency_seeded numbers: one element, or none for a constant
/// there (a zero concatenated). `pairs` are the pairs of slots with an adjoint (Hessian) or the slots
/// (Jacobian), and position[i][p] the value pair p adds to at element i, no_position where that entry
/// is outside the pattern (its local derivative is 0 wherever the pattern holds) or reads a constant.
template <class S, class F, class X, bool Hessian, std::size_t Term = 0>
struct term_positions {
  using seeded = decltype(dependency_seeded(std::declval<const X&>()));
  using root = expression_of_t<F, seeded>;
  using E = typename gathered_formula_of<root, Hessian, Term>::type;
  static constexpr std::size_t elements = E::value_type::size(), inputs = region_size<E>;

  struct gathered_elements {
    std::array<std::array<std::size_t, inputs>, elements> index{};  // by slot; `none` for a constant
    std::array<bool, inputs> active{};                              // by slot
    bool one_each = true;  // whether each element of an input has one element of the argument or none
  };
  static constexpr std::size_t none = ~std::size_t{0};
  static constexpr gathered_elements gathered = [] {
    gathered_elements g;
    for (auto& row : g.index) row.fill(none);
    const auto x = dependency_seeded(pattern_point<X>());
    const argument<0, seeded> leaf(x);
    const auto r = std::invoke(F{}, leaf);
    const auto fill = [&](const E& e) {
      const auto readers = input_readers(e);
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (
            [&] {
              if constexpr (region_input_t<E, K>::is_active) {
                constexpr std::size_t slot = input_slot<region_inputs_t<E>, K>;
                g.active[slot] = true;
                for (std::size_t i = 0; i < elements; ++i) {
                  const auto sets = std::get<K>(readers)(i).tangent;
                  if (sets.count() > 1) g.one_each = false;
                  sets.each([&](std::size_t j) { g.index[i][slot] = j; });
                }
              }
            }(),
            ...);
      }
      (std::make_index_sequence<inputs>{});
    };
    if constexpr (Hessian)
      for_each_term(r, 1.0, [&](auto term, const auto& e, const auto&) {
        if constexpr (decltype(term)::value == Term) fill(e);
      });
    else
      fill(r);
    return g;
  }();

  static constexpr std::size_t slots = [] {
    std::size_t a = 0;
    for (const bool b : gathered.active) a += b ? 1 : 0;
    return a;
  }();
  static constexpr std::size_t pair_count = Hessian ? slots * slots : slots;
  struct slot_pair {
    std::size_t r, s;
  };
  static constexpr std::array<slot_pair, pair_count> pairs = [] {
    std::array<std::size_t, slots> active{};
    for (std::size_t k = 0, a = 0; k < inputs; ++k)
      if (gathered.active[k]) active[a++] = k;
    std::array<slot_pair, pair_count> p{};
    for (std::size_t a = 0; a < pair_count; ++a)
      p[a] = Hessian ? slot_pair{active[a / slots], active[a % slots]} : slot_pair{active[a], active[a]};
    return p;
  }();
  static constexpr auto position = [] {
    std::array<std::array<std::uint32_t, pair_count>, elements> where{};
    for (std::size_t i = 0; i < elements; ++i)
      for (std::size_t p = 0; p < pair_count; ++p) {
        const std::size_t row = Hessian ? gathered.index[i][pairs[p].r] : i;
        const std::size_t col = gathered.index[i][pairs[p].s];
        where[i][p] = row == none || col == none ? no_position : position_in<S>(row, col);
      }
    return where;
  }();
  /// Where pair p's position is a + b i at every element i (a band, a slice's shift), {a, b}: computed,
  /// not read from the table.
  struct affine_position {
    bool holds = false;
    std::size_t a = 0, b = 0;
  };
  static constexpr auto affine = [] {
    std::array<affine_position, pair_count> f{};
    for (std::size_t p = 0; p < pair_count; ++p) {
      if (elements == 0 || position[0][p] == no_position) continue;
      const std::size_t a = position[0][p];
      const std::size_t b = elements > 1 && position[1][p] != no_position ? position[1][p] - a : 0;
      bool holds = true;
      for (std::size_t i = 0; i < elements; ++i) holds = holds && position[i][p] == a + b * i;
      f[p] = {holds, a, b};
    }
    return f;
  }();
  /// Whether pair p has a position at every element: its additions need no test.
  static constexpr auto everywhere = [] {
    std::array<bool, pair_count> all{};
    for (std::size_t p = 0; p < pair_count; ++p) {
      all[p] = true;
      for (std::size_t i = 0; i < elements; ++i) all[p] = all[p] && position[i][p] != no_position;
    }
    return all;
  }();
};

/// Whether f's derivative of structure S is taken term by term, element by element
/// (sweep/elementwise_terms.hpp): f is a sum of terms (Hessian) or a gathered formula (Jacobian) of an
/// argument of type X, and each element of each input reads one element of the argument or none.
template <class S, class F, class X, bool Hessian>
constexpr bool by_terms() {
  using root = expression_of_t<F, X>;
  bool terms = false;
  if constexpr (Expression<root> && Matrix<X>) {
    if constexpr (Hessian && sum_of_terms<root>()) {
      terms = []<std::size_t... T>(std::index_sequence<T...>) {
        return (term_positions<S, F, X, true, T>::gathered.one_each && ...);
      }
      (std::make_index_sequence<terms_of_t<root>::size>{});
    } else if constexpr (!Hessian && gathered_formula<root>) {
      terms = term_positions<S, F, X, false>::gathered.one_each;
    }
  }
  return terms;
}

/// How a pair of a term writes its values: it stores them, where each of its writes is the first to
/// its value; else it adds to them, in place, or later from a buffer (`deferred`).
enum class pair_write : unsigned char { store, add, deferred };

/// How the local derivatives of f's terms are written into the values of a sparse derivative of
/// structure S, in the order term_by_term runs them (terms, then elements, then pairs), so that the
/// values are neither filled with zeros nor read back where one term alone writes them. A pair that
/// adds to a value its own term wrote at this element or the one before defers its additions: the
/// elements' loop stores them in a buffer, and one loop adds the buffer into the values at the end.
/// Added in place, Rosenbrock's diagonal, which element i stores and element i + 1 reads back, ran the
/// loop at 3 times the time of stores alone (n = 256): each load waited on the store before it. `zeroed`
/// are the values set to 0 first, those that an addition reaches first and those nothing writes.
template <class S, class F, class X, bool Hessian>
struct write_plan {
  static constexpr std::size_t terms = [] {
    if constexpr (Hessian)
      return terms_of_t<expression_of_t<F, X>>::size;
    else
      return std::size_t{1};
  }();
  static constexpr std::size_t nnz = S::pattern.nonzeros();
  template <std::size_t T>
  using positions = term_positions<S, F, X, Hessian, T>;
  static constexpr std::size_t most_pairs = []<std::size_t... T>(std::index_sequence<T...>) {
    return std::max({std::size_t{0}, positions<T>::pair_count...});
  }
  (std::make_index_sequence<terms>{});

  /// Calls visit(T, i, p, k) for each write, in the order term_by_term makes them.
  template <class Visit>
  static constexpr void each_write(const Visit& visit) {
    [&]<std::size_t... T>(std::index_sequence<T...>) {
      (
          [&] {
            using P = positions<T>;
            for (std::size_t i = 0; i < P::elements; ++i)
              for (std::size_t p = 0; p < P::pair_count; ++p)
                if (const std::uint32_t k = P::position[i][p]; k != no_position) visit(T, i, p, k);
          }(),
          ...);
    }
    (std::make_index_sequence<terms>{});
  }

  struct tables {
    std::array<std::array<pair_write, most_pairs>, terms> writes{};
    std::array<bool, nnz> zeroed{};
    std::size_t zero_count = 0;
  };
  static constexpr tables plan = [] {
    tables t;
    std::array<bool, nnz> written{};
    constexpr std::size_t none = ~std::size_t{0};
    std::array<std::size_t, nnz> last_term{}, last_element{};
    last_term.fill(none);
    each_write([&](std::size_t term, std::size_t i, std::size_t p, std::size_t k) {
      if (written[k] && t.writes[term][p] == pair_write::store) t.writes[term][p] = pair_write::add;
      if (last_term[k] == term && last_element[k] + 1 >= i) t.writes[term][p] = pair_write::deferred;
      written[k] = true;
      last_term[k] = term;
      last_element[k] = i;
    });
    // Where an adding pair writes a value first, the value starts at 0.
    std::array<bool, nnz> reached{};
    each_write([&](std::size_t term, std::size_t, std::size_t p, std::size_t k) {
      if (!reached[k] && t.writes[term][p] != pair_write::store) t.zeroed[k] = true;
      reached[k] = true;
    });
    for (std::size_t k = 0; k < nnz; ++k) {
      if (!reached[k]) t.zeroed[k] = true;
      t.zero_count += t.zeroed[k] ? 1 : 0;
    }
    return t;
  }();
  static constexpr auto zeroed = [] {
    std::array<std::uint32_t, plan.zero_count> z{};
    for (std::size_t k = 0, z_k = 0; k < nnz; ++k)
      if (plan.zeroed[k]) z[z_k++] = static_cast<std::uint32_t>(k);
    return z;
  }();

  /// The buffer: deferred pair p of term T at element i has slot first_slot[T] + i * deferring[T] +
  /// (its rank among term T's deferred pairs).
  static constexpr std::array<std::size_t, terms> deferring = [] {
    std::array<std::size_t, terms> d{};
    for (std::size_t term = 0; term < terms; ++term)
      for (const pair_write w : plan.writes[term]) d[term] += w == pair_write::deferred ? 1 : 0;
    return d;
  }();
  static constexpr std::array<std::size_t, terms + 1> first_slot = []<std::size_t... T>(std::index_sequence<T...>) {
    std::array<std::size_t, terms + 1> f{};
    ((f[T + 1] = f[T] + positions<T>::elements * deferring[T]), ...);
    return f;
  }
  (std::make_index_sequence<terms>{});
  static constexpr std::size_t slots = first_slot[terms];
  /// Each deferred pair's rank among its term's deferred pairs.
  static constexpr auto rank = [] {
    std::array<std::array<std::size_t, most_pairs>, terms> r{};
    for (std::size_t term = 0; term < terms; ++term)
      for (std::size_t p = 1; p < most_pairs; ++p)
        r[term][p] = r[term][p - 1] + (plan.writes[term][p - 1] == pair_write::deferred ? 1 : 0);
    return r;
  }();
  static constexpr std::size_t slot(std::size_t term, std::size_t i, std::size_t p) {
    return first_slot[term] + i * deferring[term] + rank[term][p];
  }
  /// The deferred additions, in the order they were made: value `into` += slot `from`.
  struct addition {
    std::uint32_t from, into;
  };
  static constexpr std::size_t addition_count = [] {
    std::size_t c = 0;
    each_write([&](std::size_t term, std::size_t, std::size_t p, std::size_t) {
      c += plan.writes[term][p] == pair_write::deferred ? 1 : 0;
    });
    return c;
  }();
  static constexpr auto additions = [] {
    std::array<addition, addition_count> list{};
    std::size_t e = 0;
    each_write([&](std::size_t term, std::size_t i, std::size_t p, std::size_t k) {
      if (plan.writes[term][p] == pair_write::deferred)
        list[e++] = {static_cast<std::uint32_t>(slot(term, i, p)), static_cast<std::uint32_t>(k)};
    });
    return list;
  }();
};

/// The structure of what a call refused returns: nothing to read, so no further error.
struct no_structure {
  static constexpr sparsity_pattern<1, 1> pattern{};
};

/// One sparse derivative of f: the Hessian (Hessian = true) or the Jacobian; term by term where f
/// allows it (and Terms: the tests compare both ways), else by colors.
template <class F, bool Hessian, bool Terms = true>
struct sparse_derivative_transform {
  F f;

  template <class X>
  constexpr auto operator()(const X& x) const {
    static_assert(fixed_shape_argument<X>,
                  "tl::sparse_hessian(f)(x) and tl::sparse_jacobian(f)(x): x must be a floating-point number or a "
                  "tl::matrix of them with extents fixed at compile time, since its pattern is a constant");
    static_assert(std::is_default_constructible_v<F>,
                  "tl::sparse_hessian(f) and tl::sparse_jacobian(f): f must be a lambda without captures (or a "
                  "default-constructible function object), since the pattern is found at compile time from f's "
                  "type; read data through a static or constexpr object instead of a capture");
    if constexpr (fixed_shape_argument<X> && std::is_default_constructible_v<F>)
      return compute(x);
    else
      return sparse_matrix<double, no_structure>{};  // after the message above: no other
  }

 private:
  template <class X>
  constexpr auto compute(const X& x) const {
    using S = derivative_structure<F, X, Hessian>;
    if constexpr (Terms && by_terms<S, F, X, Hessian>())
      return term_by_term<S>(x);
    else
      return by_colors<S>(x);
  }

  // The local derivatives of each term at each element, added into their values.
  template <class S, class X>
  constexpr auto term_by_term(const X& x) const {
    using T = scalar_of_t<X>;
    using plan = write_plan<S, F, X, Hessian>;
    sparse_matrix<T, S> out(uninitialized);
    for (const std::uint32_t k : plan::zeroed) out.values()[k] = T(0);
    std::array<T, plan::slots> deferred;  // each slot read is written first
    [[maybe_unused]] const data_scope_for<F, argument<0, X>> data(f);
    const argument<0, X> leaf(x);
    const auto root = std::invoke(f, leaf);
    const auto write = [&]<std::size_t Term>(std::size_t i, const auto& local, auto lane_of) {
      using P = term_positions<S, F, X, Hessian, Term>;
      [&]<std::size_t... p>(std::index_sequence<p...>) {
        (
            [&] {
              constexpr auto affine = P::affine[p];
              const std::size_t k = affine.holds ? affine.a + affine.b * i : P::position[i][p];
              if (P::everywhere[p] || k != no_position) {
                constexpr pair_write how = plan::plan.writes[Term][p];
                if constexpr (how == pair_write::store)
                  out.values()[k] = lane_of(local, P::pairs[p]);
                else if constexpr (how == pair_write::add)
                  out.values()[k] += lane_of(local, P::pairs[p]);
                else
                  deferred[plan::slot(Term, i, p)] = lane_of(local, P::pairs[p]);
              }
            }(),
            ...);
      }
      (std::make_index_sequence<P::pair_count>{});
    };
    if constexpr (Hessian) {
      for_each_term(root, T(1), [&](auto term, const auto& e, const T& w) {
        local_hessians(e, w, [&](std::size_t i, const auto& adjoints) {
          // The upper triangle's d2/du_r du_s for both (r, s) and (s, r): one lane of the two.
          write.template operator()<decltype(term)::value>(i, adjoints, [](const auto& a, auto pair) {
            return a[std::min(pair.r, pair.s)].tangent.lane[std::max(pair.r, pair.s)];
          });
        });
      });
    } else {
      local_jacobians(root, [&](std::size_t i, const auto& value) {
        write.template operator()<0>(i, value, [](const auto& v, auto pair) { return v.tangent.lane[pair.s]; });
      });
    }
    for (const auto [from, into] : plan::additions) out.values()[into] += deferred[from];
    return out;
  }

  // One sweep in dual numbers per 8 colors of the pattern's columns.
  template <class S, class X>
  constexpr auto by_colors(const X& x) const {
    using T = scalar_of_t<X>;
    sparse_matrix<T, S> out;
    constexpr std::size_t L = std::clamp<std::size_t>(S::coloring.count, 1, chunk_size);
    using reading = recovery_plan<S, L>;
    for (std::size_t s = 0; s < reading::sweeps; ++s) {
      const auto seeded = color_seeded<L>(x, S::coloring, s * L);
      auto read = [&](const auto& v) {
        if constexpr (is_dual<scalar_of_t<std::remove_cvref_t<decltype(v)>>>)
          for (std::size_t e = reading::plan.start[s]; e < reading::plan.start[s + 1]; ++e) {
            const auto& where = reading::plan.entries[e];
            out.values()[where.value] = element_at(v, where.row).tangent.lane[where.lane];
          }
      };
      if constexpr (Hessian)
        read(gradient_transform<F, false, false>{f}(seeded));
      else
        read(value_of_result(std::invoke(f, seeded)));
    }
    return out;
  }
};

}  // namespace detail

/// The pattern of the Hessian of the scalar function f, of one argument of x's type (a number or a
/// fixed-shape matrix of n elements, counted row-major): an n x n sparsity_pattern holding both
/// triangles, entry (i, j) set wherever d2f / dx_i dx_j can be nonzero at some point. x gives the type
/// only: the pattern is the same for every value, and the one sparse_hessian(f) computes. A constant
/// expression where f is.
template <class F, class X>
constexpr auto hessian_pattern(const F& f, const X&) {
  static_assert(detail::fixed_shape_argument<X>,
                "tl::hessian_pattern(f, x): x must be a floating-point number or a tl::matrix of them with "
                "extents fixed at compile time");
  if constexpr (detail::fixed_shape_argument<X>) return detail::derivative_pattern<true, X>(f);
}

/// The pattern of the Jacobian of f, of one argument of x's type (as hessian_pattern's) and returning m
/// numbers (a number or a fixed-shape matrix, counted row-major): an m x n sparsity_pattern.
template <class F, class X>
constexpr auto jacobian_pattern(const F& f, const X&) {
  static_assert(detail::fixed_shape_argument<X>,
                "tl::jacobian_pattern(f, x): x must be a floating-point number or a tl::matrix of them with "
                "extents fixed at compile time");
  if constexpr (detail::fixed_shape_argument<X>) return detail::derivative_pattern<false, X>(f);
}

/// sparse_hessian(f)(x): the Hessian of the scalar function f at x, as a sparse_matrix holding the
/// entries of hessian_pattern (both triangles), in one sweep per 8 colors of its coloring. f must be
/// default-constructible (a lambda without captures): the pattern is a constant of the result's type.
template <class F>
constexpr auto sparse_hessian(F f) {
  return detail::sparse_derivative_transform<F, true>{std::move(f)};
}

/// sparse_jacobian(f)(x): the Jacobian of f at x (m x n, m the number of elements f returns), as a
/// sparse_matrix holding the entries of jacobian_pattern, in one forward evaluation per 8 colors.
template <class F>
constexpr auto sparse_jacobian(F f) {
  return detail::sparse_derivative_transform<F, false>{std::move(f)};
}

}  // namespace tapeless
