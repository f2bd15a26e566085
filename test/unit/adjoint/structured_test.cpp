// SPDX-License-Identifier: BSL-1.0
// The structured adjoints of parts of a matrix (adjoint/structured.hpp): one element, a strided part
// (a row or a column), and a cut's list of elements. Each adds to and writes an adjoint sum exactly as
// its dense form does, and touches only its own elements when added; also in a constant expression.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <cstddef>

namespace tl = tapeless;
namespace d = tl::detail;

namespace {

using M = tl::matrix<double, 3, 4>;

constexpr M counting() {
  M m;
  for (std::size_t i = 0; i < M::size(); ++i) m[i] = 1.0 + static_cast<double>(i);
  return m;
}

/// target + g and g written over target, both by the structure and by its dense form: equal.
template <class G>
constexpr bool adds_and_writes_as_dense(const G& g) {
  M added = counting(), added_dense = counting();
  d::add_adjoint(added, g);
  d::add_adjoint(added_dense, g.dense());
  M written = counting(), written_dense = counting();
  d::assign_adjoint(written, g);
  d::assign_adjoint(written_dense, g.dense());
  return added == added_dense && written == written_dense;
}

}  // namespace

TEST_CASE("one element, a row, a column and a list add and write as their dense forms") {
  static_assert(adds_and_writes_as_dense(d::one_element<M>{6, 2.5}));
  constexpr tl::matrix<double, 1, 4> row{{-1.0, 2.0, -3.0, 4.0}};
  static_assert(adds_and_writes_as_dense(d::strided_part<M, tl::matrix<double, 1, 4>, true>{{row}, 8, 1}));
  constexpr tl::matrix<double, 3, 1> col{{5.0}, {-6.0}, {7.0}};
  static_assert(adds_and_writes_as_dense(d::strided_part<M, tl::matrix<double, 3, 1>, true>{{col}, 2, 4}));
  constexpr auto list = [] {
    d::element_list<M, 4> l;
    l.add(d::one_element<M>{3, 1.5});
    l.add(d::one_element<M>{3, 0.25});  // the same element again adds to it
    l.add(d::one_element<M>{11, -2.0});
    return l;
  }();
  static_assert(list.count == 3);
  static_assert(adds_and_writes_as_dense(d::scaled_elements<M, 4>{&list, 3.0}));
  static_assert(d::scaled_elements<M, 4>{&list, 3.0}.dense()[3] == 5.25);

  // At run time too, and the dense forms are zero outside the part.
  const d::one_element<M> e{6, 2.5};
  CHECK(adds_and_writes_as_dense(e));
  const M dense = e.dense();
  for (std::size_t i = 0; i < M::size(); ++i) CHECK(dense[i] == (i == 6 ? 2.5 : 0.0));
  const auto r = d::strided_part<M, tl::matrix<double, 1, 4>, false>{{&row}, 4, 1};
  CHECK(adds_and_writes_as_dense(r));
  const M rd = r.dense();
  for (std::size_t i = 0; i < M::size(); ++i) CHECK(rd[i] == (i >= 4 && i < 8 ? row[i - 4] : 0.0));
}

TEST_CASE("an element list takes in rows, columns, slices and other lists") {
  using V = tl::vector<double, 8>;
  d::element_list<V, 16> l;
  const tl::vector<double, 2> part{{1.0}, {2.0}};
  l.add(d::strided_part<V, tl::vector<double, 2>, false>{{&part}, 3, 2});  // elements 3 and 5
  l.add(d::placed<V, 6, tl::vector<double, 2>, true>{{part}});             // elements 6 and 7
  d::element_list<V, 2> inner;
  inner.add(d::one_element<V>{0, 4.0});
  l.add(d::scaled_elements<V, 2>{&inner, 0.5});  // element 0: 2
  CHECK(l.count == 5);
  const V dense = d::scaled_elements<V, 16>{&l, 1.0}.dense();
  const V want{{2.0}, {0.0}, {0.0}, {1.0}, {0.0}, {2.0}, {1.0}, {2.0}};
  CHECK(dense == want);
}
