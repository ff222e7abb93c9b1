// SPDX-License-Identifier: Apache-2.0
#pragma once

// A thin wrapper over COIN-OR CBC's C API: variables and rows are collected
// here and handed to a fresh Cbc_Model for every solve (a CBC model is not
// meant to be solved twice), so the lexicographic stages of the planner can
// add a row and change the objective between solves. Only plain arrays cross
// into CBC: the release binary links CBC's archives and libstdc++ statically.

#include <optional>
#include <utility>
#include <vector>

namespace migplan::cli::plan {

/// One integer (or continuous) linear program, solved with CBC.
class mip {
 public:
  /// How a solve ended.
  enum class status {
    optimal,     ///< proven optimal
    feasible,    ///< a solution, not proven optimal (time limit)
    infeasible,  ///< proven to have no solution
    unknown,     ///< no solution found (time limit) or the solver gave up
  };

  /// A solve's answer.
  struct answer {
    status state = status::unknown;
    double objective = 0;        ///< of the best solution found
    double bound = 0;            ///< best possible objective (proven bound)
    std::vector<double> values;  ///< per variable; empty without a solution
    bool time_limit = false;     ///< stopped by the time limit
    double seconds = 0;          ///< wall time of the solve
    int nodes = 0;               ///< branch-and-bound nodes explored
    /// True when `values` holds a solution.
    bool has_solution() const noexcept {
      return state == status::optimal || state == status::feasible;
    }
  };

  /// Adds a variable; returns its index.
  int add_var(double lb, double ub, bool integer, double obj = 0);
  /// Adds a row lb <= sum coef * var <= ub; returns its index.
  int add_row(const std::vector<std::pair<int, double>>& coeffs, double lb, double ub);
  /// Sets every objective coefficient to 0.
  void clear_objective();
  /// Sets one objective coefficient.
  void set_obj(int var, double coef);
  /// The objective coefficients.
  const std::vector<double>& objective() const noexcept { return obj_; }
  /// Sets one variable's bounds.
  void set_bounds(int var, double lb, double ub);
  /// A variable's upper bound.
  double upper(int var) const { return ub_[static_cast<std::size_t>(var)]; }
  /// A variable's lower bound.
  double lower(int var) const { return lb_[static_cast<std::size_t>(var)]; }
  /// True for an integer variable.
  bool is_integer(int var) const { return integer_[static_cast<std::size_t>(var)] != 0; }
  /// Sets one row's bounds.
  void set_row_bounds(int r, double lb, double ub);
  /// Number of rows.
  int row_count() const noexcept { return static_cast<int>(rows_.size()); }
  /// One row's coefficients (variable, coefficient) and bounds.
  const std::vector<std::pair<int, double>>& row_coeffs(int r) const {
    return rows_[static_cast<std::size_t>(r)].coeffs;
  }
  double row_lower(int r) const { return rows_[static_cast<std::size_t>(r)].lb; }
  double row_upper(int r) const { return rows_[static_cast<std::size_t>(r)].ub; }
  /// True when maximising.
  bool maximize() const noexcept { return maximize_; }
  /// Minimise (default) or maximise.
  void set_maximize(bool maximize) noexcept { maximize_ = maximize; }
  /// A starting solution for CBC (one value per variable); cleared by an empty vector.
  void set_start(std::vector<double> start) { start_ = std::move(start); }
  /// Number of variables.
  int var_count() const noexcept { return static_cast<int>(lb_.size()); }
  /// Solves; `time_limit_s` unset = no limit. With `relax`, the LP relaxation only.
  /// `max_nodes` > 0 stops the branch and bound after that many nodes (a
  /// limit that, unlike time, gives the same answer on every machine).
  answer solve(std::optional<double> time_limit_s, bool relax = false, int max_nodes = 0) const;

  /// The LP relaxation solved with CLP, with its row duals.
  struct lp_answer {
    bool optimal = false;        ///< CLP proved it optimal
    double objective = 0;        ///< in the program's own sense (max or min)
    std::vector<double> values;  ///< per variable
    /// Per row, the dual of the program minimised (a maximised program's
    /// objective negated): d_j = c_j - sum_r duals[r] a_rj.
    std::vector<double> duals;
  };
  /// Solves the LP relaxation (integrality dropped) with CLP, which, unlike
  /// CBC's C API, gives the row duals a certificate is made from.
  lp_answer solve_lp() const;

 private:
  std::vector<double> lb_, ub_, obj_;
  std::vector<char> integer_;
  struct row {
    std::vector<std::pair<int, double>> coeffs;
    double lb, ub;
  };
  std::vector<row> rows_;
  std::vector<double> start_;
  bool maximize_ = false;
};

}  // namespace migplan::cli::plan
