// SPDX-License-Identifier: Apache-2.0
#include "plan/mip.hpp"

#include <coin/Cbc_C_Interface.h>
#include <coin/Clp_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

namespace migplan::cli::plan {

namespace {
struct cbc_deleter {
  void operator()(Cbc_Model* m) const noexcept { Cbc_deleteModel(m); }
};
using cbc_ptr = std::unique_ptr<Cbc_Model, cbc_deleter>;
}  // namespace

int mip::add_var(double lb, double ub, bool integer, double obj) {
  lb_.push_back(lb);
  ub_.push_back(ub);
  obj_.push_back(obj);
  integer_.push_back(integer ? 1 : 0);
  return static_cast<int>(lb_.size()) - 1;
}

int mip::add_row(const std::vector<std::pair<int, double>>& coeffs, double lb, double ub) {
  for (const auto& [var, coef] : coeffs)
    if (var < 0 || var >= var_count()) throw std::out_of_range("mip::add_row: no such variable");
  rows_.push_back({coeffs, lb, ub});
  return static_cast<int>(rows_.size()) - 1;
}

void mip::set_row_bounds(int r, double lb, double ub) {
  rows_.at(static_cast<std::size_t>(r)).lb = lb;
  rows_.at(static_cast<std::size_t>(r)).ub = ub;
}

void mip::clear_objective() {
  for (double& c : obj_) c = 0;
}

void mip::set_obj(int var, double coef) { obj_.at(static_cast<std::size_t>(var)) = coef; }

void mip::set_bounds(int var, double lb, double ub) {
  lb_.at(static_cast<std::size_t>(var)) = lb;
  ub_.at(static_cast<std::size_t>(var)) = ub;
}

namespace {
// A program's matrix as compressed sparse columns, and its row bounds.
struct sparse_columns {
  std::vector<CoinBigIndex> start;
  std::vector<int> index;
  std::vector<double> value;
  std::vector<double> rlb, rub;
};

// `rows` (each with coeffs, lb, ub) over `n` variables as sparse columns.
sparse_columns columns_of(std::size_t n, const auto& rows) {
  sparse_columns out;
  auto& start = out.start;
  start.assign(n + 1, 0);
  for (const auto& r : rows)
    for (const auto& [v, c] : r.coeffs) ++start[static_cast<std::size_t>(v) + 1];
  for (std::size_t j = 0; j < n; ++j) start[j + 1] += start[j];
  out.index.resize(static_cast<std::size_t>(start[n]));
  out.value.resize(static_cast<std::size_t>(start[n]));
  std::vector<CoinBigIndex> fill(start.begin(), start.end() - 1);
  out.rlb.reserve(rows.size());
  out.rub.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const auto& [v, c] : rows[i].coeffs) {
      const auto k = static_cast<std::size_t>(fill[static_cast<std::size_t>(v)]++);
      out.index[k] = static_cast<int>(i);
      out.value[k] = c;
    }
    out.rlb.push_back(rows[i].lb);
    out.rub.push_back(rows[i].ub);
  }
  return out;
}

struct clp_deleter {
  void operator()(Clp_Simplex* m) const noexcept { Clp_deleteModel(m); }
};
}  // namespace

mip::lp_answer mip::solve_lp() const {
  const std::size_t n = lb_.size();
  auto cols = columns_of(n, rows_);
  // CLP minimises here, so that the duals are those of the minimised program.
  std::vector<double> obj = obj_;
  if (maximize_)
    for (double& c : obj) c = -c;
  std::unique_ptr<Clp_Simplex, clp_deleter> m(Clp_newModel());
  Clp_setLogLevel(m.get(), 0);
  Clp_loadProblem(m.get(), static_cast<int>(n), static_cast<int>(rows_.size()), cols.start.data(),
                  cols.index.data(), cols.value.data(), lb_.data(), ub_.data(), obj.data(),
                  cols.rlb.data(), cols.rub.data());
  Clp_setOptimizationDirection(m.get(), 1.0);
  Clp_initialSolve(m.get());
  lp_answer out;
  out.optimal = Clp_isProvenOptimal(m.get()) != 0;
  if (!out.optimal) return out;
  const double* sol = Clp_getColSolution(m.get());
  const double* dual = Clp_getRowPrice(m.get());
  out.values.assign(sol, sol + n);
  out.duals.assign(dual, dual + rows_.size());
  out.objective = Clp_getObjValue(m.get()) * (maximize_ ? -1.0 : 1.0);
  return out;
}

mip::answer mip::solve(std::optional<double> time_limit_s, bool relax, int max_nodes) const {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = lb_.size();
  auto [start, index, value, rlb, rub] = columns_of(n, rows_);
  cbc_ptr m(Cbc_newModel());
  Cbc_loadProblem(m.get(), static_cast<int>(n), static_cast<int>(rows_.size()), start.data(),
                  index.data(), value.data(), lb_.data(), ub_.data(), obj_.data(), rlb.data(),
                  rub.data());
  if (!relax)
    for (std::size_t j = 0; j < n; ++j)
      if (integer_[j] != 0) Cbc_setInteger(m.get(), static_cast<int>(j));
  Cbc_setObjSense(m.get(), maximize_ ? -1.0 : 1.0);
  Cbc_setLogLevel(m.get(), 0);
  if (time_limit_s) Cbc_setMaximumSeconds(m.get(), *time_limit_s > 0.01 ? *time_limit_s : 0.01);
  if (max_nodes > 0) Cbc_setMaximumNodes(m.get(), max_nodes);
  if (!relax && start_.size() == n) {
    std::vector<int> cols(n);
    for (std::size_t j = 0; j < n; ++j) cols[j] = static_cast<int>(j);
    // CBC 2.10's C interface hands a MIP start to the model after its
    // preprocessing, by column name: where preprocessing dropped columns
    // (variables that bounds fix, such as the GPUs of a model with an
    // `available` limit) the names no longer resolve, CBC stops the search
    // ("Illegal index in ClpModel::getColumnName") and the start comes back
    // as an unproven answer. Without preprocessing the start is kept and
    // the search runs; the plan tests took no longer (bench/README.md).
    Cbc_setParameter(m.get(), "preprocess", "off");
    Cbc_setMIPStartI(m.get(), static_cast<int>(n), cols.data(), start_.data());
  }
  Cbc_solve(m.get());
  answer out;
  out.time_limit = Cbc_isSecondsLimitReached(m.get()) != 0;
  out.nodes = Cbc_getNodeCount(m.get());
  const double* sol = Cbc_getColSolution(m.get());
  const bool proven = Cbc_isProvenOptimal(m.get()) != 0;
  if (Cbc_isProvenInfeasible(m.get()) != 0) {
    out.state = status::infeasible;
  } else if (sol != nullptr && (proven || (!relax && Cbc_bestSolution(m.get()) != nullptr))) {
    out.state = proven ? status::optimal : status::feasible;
    out.values.assign(sol, sol + n);
    out.objective = Cbc_getObjValue(m.get());
  }
  // CBC's best bound can sit a hair off an optimum it proved, and the LP has no other bound.
  out.bound = (relax || proven) ? out.objective : Cbc_getBestPossibleObjValue(m.get());
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace migplan::cli::plan
