// SPDX-License-Identifier: Apache-2.0
#include "io/dra_options.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <string_view>

#include "k8s_names.hpp"
#include "quote.hpp"

namespace migplan::cli {
namespace {

// Limits of resource.k8s.io/v1 on the names (k8s.io/api/resource/v1/types.go;
// doc/dra.md cites them).
constexpr std::size_t max_driver_name = 63;  // DriverNameMaxLength
constexpr std::size_t max_pool_name = 253;   // PoolNameMaxLength

using k8s::dns_subdomain;
using k8s::max_dns_subdomain;

// A pool name: DNS subdomains joined by '/', 253 characters at most.
bool pool_name(std::string_view s) {
  if (s.empty() || s.size() > max_pool_name) return false;
  std::size_t from = 0;
  while (true) {
    const std::size_t slash = s.find('/', from);
    if (!dns_subdomain(s.substr(from, slash == std::string_view::npos ? slash : slash - from)))
      return false;
    if (slash == std::string_view::npos) return true;
    from = slash + 1;
  }
}

}  // namespace

std::optional<std::string> dra_options_problem(const dra_options& opt) {
  if (opt.gpu_index < 0 || opt.gpu_index > max_dra_gpu_index)
    return fmt::format("GPU index {} is not between 0 and {}", opt.gpu_index, max_dra_gpu_index);
  if (!dns_subdomain(opt.node_name))
    return fmt::format("node name {} is not a DNS subdomain ({}; at most {} characters)",
                       quote_token(opt.node_name), k8s::dns_subdomain_rule, max_dns_subdomain);
  // The longest name built from it; the others are no longer.
  const std::string longest =
      dra_slice_name(opt, fmt::format("devices-{}", max_dra_device_slices - 1));
  if (!dns_subdomain(longest) || (opt.pool.empty() && !pool_name(dra_default_pool(opt))))
    return fmt::format(
        "node name {} is too long to name the slices: {} must be a DNS subdomain (at most {} "
        "characters)",
        quote_token(opt.node_name), quote_token(longest, max_dns_subdomain), max_dns_subdomain);
  if (!dns_subdomain(opt.driver) || opt.driver.size() > max_driver_name)
    return fmt::format(
        "driver name {} is not a DNS subdomain (lowercase letters, digits, '-' and '.') of at "
        "most {} characters",
        quote_token(opt.driver), max_driver_name);
  if (!opt.pool.empty() && !pool_name(opt.pool))
    return fmt::format(
        "pool name {} is not DNS subdomains joined by '/' (at most {} characters in all)",
        quote_token(opt.pool), max_pool_name);
  return std::nullopt;
}

}  // namespace migplan::cli
