// SPDX-License-Identifier: BSL-1.0
// Fixed-size Eigen matrices at the transforms' boundary: each argument's gradient comes back as its own
// type and equals, bit for bit, the gradient of the same f at the tl::matrix with the same elements
// (i, j), for column-major and row-major storage, vectors and row vectors, and agrees with finite
// differences at seeded random points. Mixed arguments (Eigen, tl::matrix, double), grad<I...>,
// value_and_grad, has_aux; hessian and jacobian blocks as Eigen matrices counted in storage order;
// vjp, jvp; tl::cref of Eigen data read as the constant of its shape. Eigen arguments of run-time size
// (VectorXd, MatrixXd, a row-major matrix of three columns, Maps and Refs) under tl::grad, whose
// gradients are their plain types and equal those of the same f at a tl::matrix of run-time extents;
// each is read in place through its strides (a Map with gaps, a Ref of a block), with no copy made
// (counted), at sizes 0 to 256. tl::cref of Eigen data and of tl::matrix data of run-time size,
// read in place as constants.
#include <doctest/doctest.h>
#include <tapeless/tapeless.hpp>

#include <Eigen/Core>

#include <allocation_counter.hpp>
#include <finite_difference.hpp>

#include <cmath>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tl = tapeless;

namespace {

using col_major = Eigen::Matrix<double, 2, 3>;
using row_major = Eigen::Matrix<double, 2, 3, Eigen::RowMajor>;
using row_vector = Eigen::Matrix<double, 1, 4>;

// A function of an R x C argument that weighs each element differently, through several operations,
// so that a transposed storage order would show.
template <std::size_t R, std::size_t C>
auto loss_of_shape() {
  tl::matrix<double, R, C> w;
  for (std::size_t k = 0; k < R * C; ++k) w[k] = 0.5 + double(k);
  return [w](const auto& x) { return tl::sum(tl::exp(0.1 * x) * x) * tl::sum(w * x) + tl::sin(tl::sum(w * w * x)); };
}

/// The tl::matrix with the elements (i, j) of e.
template <class E>
auto as_tl(const E& e) {
  tl::matrix<double, E::RowsAtCompileTime, E::ColsAtCompileTime> m;
  for (std::size_t i = 0; i < m.rows(); ++i)
    for (std::size_t j = 0; j < m.cols(); ++j) m(i, j) = e(Eigen::Index(i), Eigen::Index(j));
  return m;
}

/// Whether e and m hold the same elements (i, j), exactly.
template <class E, class M>
bool same_elements(const E& e, const M& m) {
  for (std::size_t i = 0; i < m.rows(); ++i)
    for (std::size_t j = 0; j < m.cols(); ++j)
      if (e(Eigen::Index(i), Eigen::Index(j)) != m(i, j)) return false;
  return true;
}

/// The largest error of e against m, element (i, j) against (i, j).
template <class E, class M>
double worst_error(const E& e, const M& m) {
  double worst = 0;
  for (std::size_t i = 0; i < m.rows(); ++i)
    for (std::size_t j = 0; j < m.cols(); ++j)
      worst = std::max(worst, fd::rel_error(e(Eigen::Index(i), Eigen::Index(j)), m(i, j)));
  return worst;
}

template <class E>
E random_eigen(fd::rng& r) {
  E e;
  for (Eigen::Index i = 0; i < e.rows(); ++i)
    for (Eigen::Index j = 0; j < e.cols(); ++j) e(i, j) = r.uniform(-2.0, 2.0);
  return e;
}

template <class E>
void check_one_argument() {
  const auto loss = loss_of_shape<E::RowsAtCompileTime, E::ColsAtCompileTime>();
  fd::rng r(41);
  for (int point = 0; point < 10; ++point) {
    const E x = random_eigen<E>(r);
    const auto g = tl::grad(loss)(x);
    static_assert(std::is_same_v<std::remove_const_t<decltype(g)>, E>);
    const auto expected = tl::grad(loss)(as_tl(x));
    CHECK(same_elements(g, expected));
    CHECK(worst_error(g, tl::finite_difference_gradient(loss, as_tl(x))) < 1e-7);
    const auto [value, g2] = tl::value_and_grad(loss)(x);
    CHECK(value == tl::value_and_grad(loss)(as_tl(x)).first);
    CHECK(g2 == g);
  }
}

}  // namespace

TEST_CASE("an Eigen argument's gradient is its own type, that of the same f on tl::matrix") {
  SUBCASE("Eigen::Vector3d") { check_one_argument<Eigen::Vector3d>(); }
  SUBCASE("column-major 2 x 3") { check_one_argument<col_major>(); }
  SUBCASE("row-major 2 x 3") { check_one_argument<row_major>(); }
  SUBCASE("a row vector, 1 x 4") { check_one_argument<row_vector>(); }
}

TEST_CASE("a Map of a fixed-size matrix is read through its strides; its gradient is the matrix it maps") {
  double storage[6] = {1, 2, 3, 4, 5, 6};
  const Eigen::Map<const col_major> x(storage);
  const auto loss = loss_of_shape<2, 3>();
  const auto g = tl::grad(loss)(x);
  static_assert(std::is_same_v<std::remove_const_t<decltype(g)>, col_major>);
  CHECK(same_elements(g, tl::grad(loss)(as_tl(col_major(x)))));
}

TEST_CASE("mixed arguments: Eigen, tl::matrix and a number; grad<I...> and has_aux") {
  auto f = [](const auto& a, const auto& b, const auto& c) {
    return c * tl::sum(tl::matmul(a, b)) + tl::square(a(1, 2)) * b[0];
  };
  fd::rng r(7);
  const row_major a = random_eigen<row_major>(r);
  const tl::vector<double, 3> b{0.5, -1.5, 2.0};
  const double c = 1.25;
  const auto [ga, gb, gc] = tl::grad(f)(a, b, c);
  static_assert(std::is_same_v<std::remove_const_t<decltype(ga)>, row_major>);
  static_assert(std::is_same_v<std::remove_const_t<decltype(gb)>, tl::vector<double, 3>>);
  const auto [ea, eb, ec] = tl::grad(f)(as_tl(a), b, c);
  CHECK(same_elements(ga, ea));
  CHECK(gb == eb);
  CHECK(gc == ec);
  const auto [fa, fb, fc] = tl::finite_difference_gradient(f, as_tl(a), b, c);
  CHECK(worst_error(ga, fa) < 1e-7);
  CHECK(fd::rel_error(gc, fc) < 1e-7);
  (void)fb;

  const auto [sc, sa] = tl::grad<2, 0>(f)(a, b, c);
  CHECK(sc == gc);
  CHECK(sa == ga);

  auto with_aux = [&](const auto& x, const auto& y, const auto& z) { return std::pair{f(x, y, z), 3}; };
  const auto [g_aux, aux] = tl::grad<0>(with_aux, tl::has_aux)(a, b, c);
  CHECK(g_aux == ga);
  CHECK(aux == 3);
  const auto [value_aux, g_value_aux] = tl::value_and_grad<0>(with_aux, tl::has_aux)(a, b, c);
  CHECK(value_aux.first == tl::value_and_grad(f)(as_tl(a), b, c).first);
  CHECK(g_value_aux == ga);
}

TEST_CASE("hessian and jacobian: blocks of Eigen arguments are Eigen matrices, counted in storage order") {
  fd::rng r(3);
  const col_major x = random_eigen<col_major>(r);
  const auto loss = loss_of_shape<2, 3>();
  const auto h = tl::hessian(loss)(x);
  static_assert(std::is_same_v<std::remove_const_t<decltype(h)>, Eigen::Matrix<double, 6, 6>>);
  const auto expected = tl::hessian(loss)(as_tl(x));
  // Row-major element k of the tl::matrix is (k / 3, k % 3), at k / 3 + 2 (k % 3) in column-major storage.
  auto stored = [](std::size_t k) { return Eigen::Index(k / 3 + 2 * (k % 3)); };
  bool same = true;
  for (std::size_t k = 0; k < 6; ++k)
    for (std::size_t l = 0; l < 6; ++l) same = same && h(stored(k), stored(l)) == expected(k, l);
  CHECK(same);

  // Several arguments: the mixed blocks are Eigen matrices as well, a number's block with a number stays one.
  const Eigen::Vector3d v(0.5, -1.0, 2.0);
  auto g = [](const auto& a, const auto& b, const auto& c) { return tl::dot(tl::exp(a), b) * c * c; };
  const auto table = tl::hessian(g)(v, tl::vector<double, 3>{1.0, 2.0, 3.0}, 0.5);
  using table_t = std::remove_const_t<decltype(table)>;
  static_assert(std::is_same_v<std::tuple_element_t<1, std::tuple_element_t<0, table_t>>, Eigen::Matrix3d>);
  static_assert(std::is_same_v<std::tuple_element_t<2, std::tuple_element_t<0, table_t>>, Eigen::Vector3d>);
  static_assert(std::is_same_v<std::tuple_element_t<0, std::tuple_element_t<2, table_t>>, Eigen::RowVector3d>);
  static_assert(std::is_same_v<std::tuple_element_t<2, std::tuple_element_t<2, table_t>>, double>);
  const auto tl_table = tl::hessian(g)(as_tl(v), tl::vector<double, 3>{1.0, 2.0, 3.0}, 0.5);
  CHECK(same_elements(std::get<0>(std::get<0>(table)), std::get<0>(std::get<0>(tl_table))));
  CHECK(same_elements(std::get<1>(std::get<0>(table)), std::get<1>(std::get<0>(tl_table))));
  CHECK(same_elements(std::get<0>(std::get<2>(table)), std::get<0>(std::get<2>(tl_table))));

  // The Jacobian's rows are f's result's elements (a tl::matrix, row-major); its columns the argument's.
  const auto j = tl::jacobian([](const auto& a) { return tl::exp(a) * a(1, 0); })(x);
  static_assert(std::is_same_v<std::remove_const_t<decltype(j)>, Eigen::Matrix<double, 6, 6>>);
  const auto tl_j = tl::jacobian([](const auto& a) { return tl::exp(a) * a(1, 0); })(as_tl(x));
  same = true;
  for (std::size_t k = 0; k < 6; ++k)
    for (std::size_t l = 0; l < 6; ++l) same = same && j(Eigen::Index(k), stored(l)) == tl_j(k, l);
  CHECK(same);
}

TEST_CASE("vjp and jvp take Eigen arguments") {
  const Eigen::Vector3d x(0.5, -1.0, 2.0);
  auto f = [](const auto& a) { return tl::exp(a) * a[0]; };
  const auto [value, pullback] = tl::vjp(f, x);
  const tl::vector<double, 3> u{1.0, -2.0, 0.5};
  const Eigen::Vector3d back = pullback(u);
  const auto [tl_value, tl_pullback] = tl::vjp(f, as_tl(x));
  CHECK(value == tl_value);
  CHECK(same_elements(back, tl_pullback(u)));

  const Eigen::Vector3d direction(1.0, 0.0, -1.0);
  const auto [jvp_value, jv] = tl::jvp(f, std::tuple{x}, std::tuple{direction});
  const auto [tl_jvp_value, tl_jv] = tl::jvp(f, std::tuple{as_tl(x)}, std::tuple{as_tl(direction)});
  CHECK(jvp_value == tl_jvp_value);
  CHECK(jv == tl_jv);
}

TEST_CASE("vjp and jvp take Eigen arguments of run-time size; vjp keeps a copy and pulls back to their types") {
  Eigen::VectorXd x(4);
  x << 0.5, -2.0, 1.5, 0.25;
  Eigen::MatrixXd A(2, 3);
  A << 1.0, 2.0, 3.0, -1.0, 0.5, 0.25;
  const auto f = [](const auto& v, const auto& M) { return tl::log_sum_exp(v) * tl::sum(tl::square(M)); };
  const auto [value, pullback] = tl::vjp(f, x, A);
  const auto [gx, gA] = tl::grad(f)(x, A);
  const auto [back_x, back_A] = pullback(2.0);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(back_x)>, Eigen::VectorXd>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(back_A)>, Eigen::MatrixXd>);
  CHECK(std::abs(value - tl::value_and_grad(f)(x, A).first) < 1e-14 * std::abs(value));  // summed in another order
  CHECK(back_x == 2.0 * gx);
  CHECK(back_A == 2.0 * gA);
  // jvp along (x, A) itself: the gradient dotted with it, as for tl::dynamic arguments.
  const auto [jvp_value, along] = tl::jvp(f, std::tuple{x, A}, std::tuple{x, A});
  const tl::vector<double, tl::dynamic> x_tl{0.5, -2.0, 1.5, 0.25};
  const tl::matrix<double, tl::dynamic, tl::dynamic> A_tl{{1.0, 2.0, 3.0}, {-1.0, 0.5, 0.25}};
  const auto [tl_value, tl_along] = tl::jvp(f, std::tuple{x_tl, A_tl}, std::tuple{x_tl, A_tl});
  CHECK(jvp_value == tl_value);
  CHECK(along == tl_along);
  CHECK(std::abs(along - (gx.dot(x) + (gA.array() * A.array()).sum())) < 1e-13 * std::abs(along));
  // The point is the one vjp saw: the caller's vector may change after it.
  x(0) = 100.0;
  CHECK(std::get<0>(pullback(2.0)) == back_x);
}

TEST_CASE("hessian and jacobian take Eigen arguments of run-time size: Eigen blocks in their storage order") {
  Eigen::MatrixXd A(2, 3);
  A << 1.0, 2.0, 3.0, -1.0, 0.5, 0.25;
  const tl::matrix<double, tl::dynamic, tl::dynamic> A_tl{{1.0, 2.0, 3.0}, {-1.0, 0.5, 0.25}};
  const auto f = [](const auto& M) { return tl::log_sum_exp(tl::square(M)) + tl::sum(tl::exp(0.5 * M)) * M(0, 1); };
  const Eigen::MatrixXd H = tl::hessian(f)(A);
  const auto H_tl = tl::hessian(f)(A_tl);
  REQUIRE(H.rows() == 6);
  REQUIRE(H.cols() == 6);
  // Row and column k of H are element k of A's storage, column-major; H_tl counts elements row-major.
  bool same = true;
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t p = 0; p < 2; ++p)
        for (std::size_t q = 0; q < 3; ++q)
          same = same && H(Eigen::Index(j * 2 + i), Eigen::Index(q * 2 + p)) == H_tl(i * 3 + j, p * 3 + q);
  CHECK(same);
  // A VectorXd beside a number: the blocks as Eigen matrices, a row of the gradient for a number.
  Eigen::VectorXd x(3);
  x << 0.5, -2.0, 1.5;
  const auto g = [](const auto& v, const auto& a) { return a * tl::norm(v); };
  const auto [Jx, Ja] = tl::jacobian(g)(x, 2.0);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(Jx)>, Eigen::Matrix<double, 1, Eigen::Dynamic>>);
  const Eigen::VectorXd grad_x = std::get<0>(tl::grad(g)(x, 2.0));
  CHECK(Jx.cols() == 3);
  CHECK(Jx.transpose() == grad_x);
  CHECK(Ja == std::sqrt(0.25 + 4.0 + 2.25));
  const auto Hg = tl::hessian(g)(x, 2.0);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(std::get<0>(Hg)))>, Eigen::MatrixXd>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<1>(std::get<0>(Hg)))>, Eigen::VectorXd>);
  CHECK(std::get<1>(std::get<0>(Hg)) == grad_x / 2.0);
}

TEST_CASE("tl::cref of Eigen data reads it as the constant matrix of its shape") {
  row_major w_row;
  w_row << 1, 2, 3, 4, 5, 6;
  const col_major w_col = w_row;
  const Eigen::Vector3d v(1.0, -1.0, 0.5);
  const auto w_tl = as_tl(w_row);
  const auto v_tl = as_tl(v);
  const tl::vector<double, 2> x{0.25, -0.75};
  auto uses = [](const auto& w, const auto& u) {
    return [&w, &u](const auto& y) {
      return tl::sum(tl::exp(tl::matmul(tl::transpose(tl::cref(w)), y))) * tl::dot(tl::cref(u), tl::cref(u));
    };
  };
  const auto expected = tl::grad(uses(w_tl, v_tl))(x);
  CHECK(tl::grad(uses(w_row, v))(x) == expected);
  CHECK(tl::grad(uses(w_col, v))(x) == expected);
  CHECK(tl::hessian(uses(w_col, v))(x) == tl::hessian(uses(w_tl, v_tl))(x));
}

namespace {

/// Element sums over the indices of an argument of run-time size: f of the elements and their
/// neighbours, reading A(i, j) of a matrix in its (i, j) order.
constexpr auto vector_sum = [](const auto& x) {
  return tl::sum_over(
      tl::indices(x.size() - 1),
      [](std::size_t i, const auto& x) { return tl::sin(x[i]) * x[i + 1] + tl::square(x[i]); }, x);
};
constexpr auto matrix_sum = [](const auto& A) {
  return tl::sum_over(
      tl::pairs(A.rows()),
      [](std::size_t i, std::size_t j, const auto& A) { return tl::exp(A(i, 0) - A(j, 1)) * A(j, A.cols() - 1); }, A);
};

}  // namespace

TEST_CASE("Eigen arguments of run-time size under tl::grad: gradients of their own plain type, as tl::dynamic's") {
  Eigen::VectorXd x(7);
  x << 0.5, -1.0, 0.25, 2.0, -0.75, 1.5, 0.1;
  tl::vector<double, tl::dynamic> tx(7);
  for (std::size_t k = 0; k < 7; ++k) tx[k] = x(static_cast<Eigen::Index>(k));
  const auto want = tl::grad(vector_sum)(tx);

  const auto check_vector = [&](const auto& g) {
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(g)>, Eigen::VectorXd>);
    REQUIRE(g.size() == 7);
    for (std::size_t k = 0; k < 7; ++k) CHECK(g(static_cast<Eigen::Index>(k)) == want[k]);
  };
  check_vector(tl::grad(vector_sum)(x));
  check_vector(tl::grad(vector_sum)(Eigen::Map<const Eigen::VectorXd>(x.data(), 7)));
  check_vector(tl::grad(vector_sum)(Eigen::Ref<const Eigen::VectorXd>(x)));
  const auto [value, g] = tl::value_and_grad(vector_sum)(x);
  CHECK(value == vector_sum(tx));
  check_vector(g);

  // A column-major MatrixXd and a row-major matrix of three columns: element (i, j) is (i, j).
  Eigen::MatrixXd A(5, 3);
  Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> B(5, 3);
  tl::matrix<double, tl::dynamic, tl::dynamic> tA(5, 3);
  fd::rng u(17);
  for (Eigen::Index i = 0; i < 5; ++i)
    for (Eigen::Index j = 0; j < 3; ++j) {
      A(i, j) = B(i, j) = u.uniform(-1, 1);
      tA(static_cast<std::size_t>(i), static_cast<std::size_t>(j)) = A(i, j);
    }
  const auto want_A = tl::grad(matrix_sum)(tA);
  const auto gA = tl::grad(matrix_sum)(A);
  const auto gB = tl::grad(matrix_sum)(B);
  const auto gRef = tl::grad(matrix_sum)(Eigen::Ref<const Eigen::MatrixXd>(A));
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(gA)>, Eigen::MatrixXd>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(gB)>, decltype(B)>);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(gRef)>, Eigen::MatrixXd>);
  for (Eigen::Index i = 0; i < 5; ++i)
    for (Eigen::Index j = 0; j < 3; ++j) {
      const double w = want_A(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
      CHECK(gA(i, j) == w);
      CHECK(gB(i, j) == w);
      CHECK(gRef(i, j) == w);
      // Against central differences in the matrix's own element.
      const double d = fd::derivative(
          [&](double e) {
            auto moved = tA;
            moved(static_cast<std::size_t>(i), static_cast<std::size_t>(j)) = e;
            return matrix_sum(moved);  // f of plain numbers
          },
          A(i, j));
      CHECK(fd::rel_error(gA(i, j), d) < 1e-7);
    }
  // Beside a number: a tuple of the number's gradient and the Eigen one.
  const auto [ds, dx] = tl::grad([](const auto& s, const auto& x) { return s * vector_sum(x); })(2.0, x);
  CHECK(ds == vector_sum(tx));
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(dx)>, Eigen::VectorXd>);
  for (std::size_t k = 0; k < 7; ++k) CHECK(dx(static_cast<Eigen::Index>(k)) == 2.0 * want[k]);
}

namespace {

/// A sum over every element of a vector of run-time size, its neighbour read cyclically: any n >= 0.
constexpr auto cyclic_sum = [](const auto& x) {
  return tl::sum_over(
      tl::indices(x.size()),
      [](std::size_t i, const auto& x) {
        const std::size_t next = i + 1 == x.size() ? 0 : i + 1;
        return tl::sin(x[i]) * x[next] + tl::square(x[i]);
      },
      x);
};

/// Rows of a matrix of three columns, read as rows and as elements.
constexpr auto rows_sum = [](const auto& A) {
  return tl::sum_over(
      tl::indices(A.rows()),
      [](std::size_t i, const auto& A) {
        const auto r = tl::row(A, i);
        return tl::exp(0.5 * r[0]) * r[2] + A(i, 1) * A(i, 1) * A(i, 0);
      },
      A);
};

template <class G, class Want>
void check_same_elements(const G& g, const Want& want) {
  REQUIRE(std::size_t(g.rows()) == want.rows());
  REQUIRE(std::size_t(g.cols()) == want.cols());
  for (std::size_t i = 0; i < want.rows(); ++i)
    for (std::size_t j = 0; j < want.cols(); ++j) CHECK(g(Eigen::Index(i), Eigen::Index(j)) == want(i, j));
}

}  // namespace

// Read as a tl::matrix's elements are where the type says they lie so, else through strides.
using tl::detail::dense_view;
using tl::detail::eigen_view_t;
using tl::detail::matrix_view;
using row_major_dynamic = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
static_assert(std::is_same_v<eigen_view_t<Eigen::VectorXd>, dense_view<double, tl::dynamic, 1>>);
static_assert(std::is_same_v<eigen_view_t<Eigen::RowVectorXd>, dense_view<double, 1, tl::dynamic>>);
static_assert(std::is_same_v<eigen_view_t<Eigen::Map<const Eigen::VectorXd>>, dense_view<double, tl::dynamic, 1>>);
static_assert(std::is_same_v<eigen_view_t<Eigen::Ref<const Eigen::VectorXd>>, dense_view<double, tl::dynamic, 1>>);
static_assert(std::is_same_v<eigen_view_t<row_major_dynamic>, dense_view<double, tl::dynamic, tl::dynamic>>);
static_assert(std::is_same_v<eigen_view_t<Eigen::Map<const Eigen::VectorXd, 0, Eigen::InnerStride<2>>>,
                             matrix_view<double, tl::dynamic, 1>>);
static_assert(std::is_same_v<eigen_view_t<decltype(std::declval<Eigen::MatrixXd&>().row(0))>,
                             matrix_view<double, 1, tl::dynamic>>);
static_assert(std::is_same_v<eigen_view_t<Eigen::MatrixXd>, matrix_view<double, tl::dynamic, tl::dynamic>>);
static_assert(
    std::is_same_v<eigen_view_t<Eigen::Ref<const row_major_dynamic>>, matrix_view<double, tl::dynamic, tl::dynamic>>);

TEST_CASE("Eigen vectors of run-time size are read in place, through their strides, at sizes 0 to 256") {
  using dynamic_vector = tl::vector<double, tl::dynamic>;
  for (const std::size_t n : {0u, 1u, 2u, 3u, 31u, 32u, 33u, 256u}) {
    CAPTURE(n);
    fd::rng u(100 + n);
    // Every other element of a buffer: a Map with an inner stride of 2.
    std::vector<double> buffer(2 * n + 1);
    for (double& e : buffer) e = u.uniform(-1, 1);
    const Eigen::Map<const Eigen::VectorXd, 0, Eigen::InnerStride<2>> strided(buffer.data(), Eigen::Index(n));
    const Eigen::VectorXd x = strided;
    dynamic_vector tx(n);
    for (std::size_t k = 0; k < n; ++k) tx[k] = x(Eigen::Index(k));
    const auto want = tl::grad(cyclic_sum)(tx);

    check_same_elements(tl::grad(cyclic_sum)(x), want);
    check_same_elements(tl::grad(cyclic_sum)(strided), want);
    check_same_elements(tl::grad(cyclic_sum)(Eigen::Ref<const Eigen::VectorXd>(x)), want);
    // A row of a column-major matrix: a row vector whose elements lie a column apart. (Not of 3 x 0,
    // whose block Eigen's own code offsets from a null pointer.)
    if (n > 0) {
      Eigen::MatrixXd M = Eigen::MatrixXd::Zero(3, Eigen::Index(n));
      M.row(1) = x.transpose();
      const auto g_row = tl::grad(cyclic_sum)(M.row(1));
      static_assert(std::is_same_v<std::remove_cvref_t<decltype(g_row)>, Eigen::RowVectorXd>);
      for (std::size_t k = 0; k < n; ++k) CHECK(g_row(Eigen::Index(k)) == want[k]);
    }
    for (std::size_t k = 0; k < std::min<std::size_t>(n, 3); ++k)
      CHECK(fd::rel_error(want[k], fd::partial(cyclic_sum, tx, k)) < 1e-7);
    // log_sum_exp of the dense vector runs the fixed-shape operation's passes, as of tx (the same bits);
    // through the strides, the sum over elements (the same to roundings).
    const auto lse = [](const auto& v) { return tl::log_sum_exp(v); };
    const auto lse_want = tl::grad(lse)(tx);
    check_same_elements(tl::grad(lse)(x), lse_want);
    const auto lse_strided = tl::grad(lse)(strided);
    for (std::size_t k = 0; k < n; ++k) CHECK(fd::rel_error(lse_strided(Eigen::Index(k)), lse_want[k]) < 1e-13);

    // No copy of the argument: the allocations of a tl::dynamic argument's gradient, no more. (A copy
    // would be a tl::matrix, which operator new allocates and the counter sees; the Eigen vector the
    // gradient comes back as is allocated by Eigen with malloc, which it does not.)
    const long for_tl = test_support::allocations_during([&] { (void)tl::grad(cyclic_sum)(tx); });
    CHECK(test_support::allocations_during([&] { (void)tl::grad(cyclic_sum)(x); }) == for_tl);
    CHECK(test_support::allocations_during([&] { (void)tl::grad(cyclic_sum)(strided); }) == for_tl);
  }
}

TEST_CASE("Eigen matrices of run-time size are read in place by element and by row, in either storage order") {
  fd::rng u(41);
  for (const std::size_t n : {1u, 5u, 33u}) {
    CAPTURE(n);
    // A block of a larger matrix: its columns lie further apart than its rows count.
    Eigen::MatrixXd big(Eigen::Index(n) + 2, 4);
    for (Eigen::Index i = 0; i < big.rows(); ++i)
      for (Eigen::Index j = 0; j < 4; ++j) big(i, j) = u.uniform(-1, 1);
    const Eigen::MatrixXd A = big.block(1, 0, Eigen::Index(n), 3);
    const Eigen::Matrix<double, Eigen::Dynamic, 3> A3 = A;
    const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> A3_rows = A;
    tl::matrix<double, tl::dynamic, 3> tA(n, 3);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < 3; ++j) tA(i, j) = A(Eigen::Index(i), Eigen::Index(j));
    const auto want = tl::grad(rows_sum)(tA);

    check_same_elements(tl::grad(rows_sum)(A3), want);
    check_same_elements(tl::grad(rows_sum)(A3_rows), want);
    const Eigen::Ref<const Eigen::Matrix<double, Eigen::Dynamic, 3>> block = big.block(1, 0, Eigen::Index(n), 3);
    check_same_elements(tl::grad(rows_sum)(block), want);
    const auto g = tl::grad(matrix_sum)(Eigen::Ref<const Eigen::MatrixXd>(big.block(1, 0, Eigen::Index(n), 3)));
    check_same_elements(g, tl::grad(matrix_sum)(tl::matrix<double, tl::dynamic, tl::dynamic>(tA)));
    const long for_tl = test_support::allocations_during([&] { (void)tl::grad(rows_sum)(tA); });
    CHECK(test_support::allocations_during([&] { (void)tl::grad(rows_sum)(block); }) == for_tl);
  }
}

TEST_CASE("tl::cref of data of run-time size, Eigen's or tl's, is read in place as constants") {
  fd::rng u(7);
  const std::size_t n = 33;
  Eigen::MatrixXd X(Eigen::Index(n), 3);
  Eigen::VectorXd y(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < X.rows(); ++i) {
    for (Eigen::Index j = 0; j < 3; ++j) X(i, j) = u.uniform(-1, 1);
    y(i) = u.uniform(-1, 1);
  }
  const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> X_rows = X;
  tl::matrix<double, tl::dynamic, 3> tX(n, 3);
  tl::vector<double, tl::dynamic> ty(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < 3; ++j) tX(i, j) = X(Eigen::Index(i), Eigen::Index(j));
    ty[i] = y(Eigen::Index(i));
  }
  const tl::vector<double, 3> w{0.5, -0.25, 1.5};
  // A least-squares loss written with the data as constants of the expression, read by element, and
  // where the columns are fixed, by row.
  const auto loss = [](const auto& X, const auto& y) {
    return [&X, &y](const auto& w) {
      return tl::sum_over(
          tl::indices(tl::cref(X).rows()),
          [&](std::size_t i, const auto& w) {
            const auto x = tl::cref(X);
            return tl::square(x(i, 0) * w[0] + x(i, 1) * w[1] + x(i, 2) * w[2] - tl::cref(y)[i]);
          },
          w);
    };
  };
  const auto loss_by_rows = [](const auto& X, const auto& y) {
    return [&X, &y](const auto& w) {
      return tl::sum_over(
          tl::indices(tl::cref(X).rows()),
          [&](std::size_t i, const auto& w) {
            const auto r = tl::row(tl::cref(X), i);
            return tl::square(r[0] * w[0] + r[1] * w[1] + r[2] * w[2] - tl::cref(y)[i]);
          },
          w);
    };
  };
  // The same with plain numbers read from the tl data.
  const auto plain = [&](const auto& w) {
    return tl::sum_over(
        tl::indices(n),
        [&](std::size_t i, const auto& w) {
          return tl::square(tX(i, 0) * w[0] + tX(i, 1) * w[1] + tX(i, 2) * w[2] - ty[i]);
        },
        w);
  };
  const auto want = tl::grad(plain)(w);
  CHECK(tl::grad(loss(tX, ty))(w) == want);
  CHECK(tl::grad(loss(X, y))(w) == want);
  CHECK(tl::grad(loss(X_rows, y))(w) == want);
  CHECK(tl::grad(loss_by_rows(X_rows, y))(w) == want);
  CHECK(tl::grad(loss_by_rows(tX, ty))(w) == want);
  const Eigen::Matrix<double, Eigen::Dynamic, 3> X3 = X;  // column-major: a row's elements lie apart
  CHECK(tl::grad(loss_by_rows(X3, y))(w) == want);
  // A Map and a block, each viewing memory that outlives them.
  const Eigen::Map<const Eigen::VectorXd> y_map(y.data(), y.size());
  CHECK(tl::grad(loss(X, y_map))(w) == want);
  CHECK(tl::grad([&](const auto& w) { return loss(X, y)(w) + 0.0 * tl::cref(X.col(2))[n - 1] * w[0]; })(w) == want);
  // Read in place: no allocation beyond the gradient's (none, for a fixed-size w).
  CHECK(test_support::allocations_during([&] { (void)tl::grad(loss(X, y))(w); }) == 0);
  CHECK(test_support::allocations_during([&] { (void)tl::grad(loss(tX, ty))(w); }) == 0);
  // Extents at run time, and indices checked against them.
  CHECK(tl::cref(X).rows() == n);
  CHECK(tl::cref(X).cols() == 3);
  CHECK(tl::cref(y).size() == n);
  CHECK_THROWS_AS(tl::cref(X)(n, 0), std::out_of_range);
  CHECK_THROWS_AS(tl::cref(ty)[n], std::out_of_range);
  CHECK_THROWS_AS(tl::row(tl::cref(tX), n), std::out_of_range);
}

TEST_CASE(
    "formulas over Eigen arrays of run-time size: tl::sum, tl::dot, tl::slice and tl::if_else read them in place") {
  constexpr std::size_t n = 33;
  Eigen::VectorXd x(n), y(n);
  for (std::size_t k = 0; k < n; ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    x(i) = 0.05 * static_cast<double>(k) - 0.7;
    y(i) = std::sin(static_cast<double>(k));
  }
  tl::vector<double, tl::dynamic> tx(n);
  for (std::size_t k = 0; k < n; ++k) tx[k] = x(static_cast<Eigen::Index>(k));
  const auto f = [&y](const auto& v, const auto& a) {
    const std::size_t m = v.size();
    return tl::sum(tl::square(a * v - tl::cref(y))) +
           tl::dot(tl::slice(v, 1, m - 1) - tl::slice(v, 0, m - 1), tl::slice(tl::cref(y), 0, m - 1));
  };
  // The Eigen argument and its tl twin: the same value and gradient, of the argument's own type.
  const auto [value, g] = tl::value_and_grad(f)(x, 1.5);
  const auto [twin_value, twin_g] = tl::value_and_grad(f)(tx, 1.5);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(std::get<0>(g))>, Eigen::VectorXd>);
  CHECK(value == twin_value);
  CHECK(std::get<1>(g) == std::get<1>(twin_g));
  for (std::size_t k = 0; k < n; ++k) CHECK(std::get<0>(g)(static_cast<Eigen::Index>(k)) == std::get<0>(twin_g)[k]);
  // A Map of the same numbers, read in place.
  const Eigen::Map<const Eigen::VectorXd> x_map(x.data(), x.size());
  CHECK(std::get<1>(tl::grad(f)(x_map, 1.5)) == std::get<1>(g));
  // Comparisons, tl::if_else and an element of a formula, as the twin's.
  const auto clipped = [&y](const auto& v) {
    return tl::sum(tl::if_else(v > tl::cref(y), tl::square(v), 0.5 * v)) - tl::log_softmax(v)[3];
  };
  const Eigen::VectorXd gc = tl::grad(clipped)(x);
  const auto twin_gc = tl::grad(clipped)(tx);
  for (std::size_t k = 0; k < n; ++k) CHECK(gc(static_cast<Eigen::Index>(k)) == twin_gc[k]);

  // A column-major MatrixXd argument and MatrixXd data: the gradient of sum(M^2 B) is 2 M B, element by
  // element, whatever the storage order.
  Eigen::MatrixXd M(3, 4), B(3, 4);
  for (Eigen::Index i = 0; i < 3; ++i)
    for (Eigen::Index j = 0; j < 4; ++j) {
      M(i, j) = 0.3 * static_cast<double>(i) - 0.1 * static_cast<double>(j);
      B(i, j) = static_cast<double>(i * 4 + j + 1);
    }
  const Eigen::MatrixXd gm = tl::grad([&B](const auto& A) { return tl::sum(tl::square(A) * tl::cref(B)); })(M);
  for (Eigen::Index i = 0; i < 3; ++i)
    for (Eigen::Index j = 0; j < 4; ++j) CHECK(gm(i, j) == 2 * M(i, j) * B(i, j));
}

TEST_CASE("products of Eigen arrays of run-time size, column-major, read in place: the tl twin's gradients") {
  // M (5 x 3) the argument, B (3 x 4) data, both column-major; their tl twins row-major.
  Eigen::MatrixXd M(5, 3), B(3, 4);
  tl::matrix<double, tl::dynamic, tl::dynamic> tm(5, 3), tb(3, 4);
  fd::rng u(70);
  for (Eigen::Index i = 0; i < 5; ++i)
    for (Eigen::Index j = 0; j < 3; ++j) tm(std::size_t(i), std::size_t(j)) = M(i, j) = u.uniform(-1.0, 1.0);
  for (Eigen::Index i = 0; i < 3; ++i)
    for (Eigen::Index j = 0; j < 4; ++j) tb(std::size_t(i), std::size_t(j)) = B(i, j) = u.uniform(-1.0, 1.0);
  const auto f = [](const auto& data) {
    return [&data](const auto& A) {
      return tl::sum(tl::tanh(tl::matmul(A, tl::cref(data)))) + tl::sum(tl::square(tl::matmul(tl::transpose(A), A))) +
             tl::matmul(A, tl::cref(data))(4, 3);
    };
  };
  const auto [value, g] = tl::value_and_grad(f(B))(M);
  const auto [twin_value, twin_g] = tl::value_and_grad(f(tb))(tm);
  static_assert(std::is_same_v<std::remove_cvref_t<decltype(g)>, Eigen::MatrixXd>);
  CHECK(value == twin_value);
  for (Eigen::Index i = 0; i < 5; ++i)
    for (Eigen::Index j = 0; j < 3; ++j) CHECK(g(i, j) == twin_g(std::size_t(i), std::size_t(j)));
  // A Ref of the data, and a Map of the argument: the same numbers, read where they lie.
  const Eigen::Ref<const Eigen::MatrixXd> b_ref(B);
  const Eigen::Map<const Eigen::MatrixXd> m_map(M.data(), 5, 3);
  const Eigen::MatrixXd g_map = tl::grad(f(b_ref))(m_map);
  CHECK(g_map == g);
}
