// SPDX-License-Identifier: Apache-2.0
#pragma once

// `--emit dra`: the Kubernetes DRA ResourceSlices (resource.k8s.io/v1, the
// partitionable-devices form of KEP-4815) that offer every MIG placement of
// one GPU as a device, with the model's rules as shared counters
// (migplan/counters.hpp). What the slices hold, the API limits they respect
// and the sources are in doc/dra.md.

#include <iosfwd>
#include <migplan/gpu.hpp>
#include <string>

#include "model/dra.hpp"

namespace migplan::cli::render {

/// Writes, as a YAML stream, the ResourceSlices of one GPU of model `g`: one
/// with the shared counters, then the devices, at most 64 per slice; all in
/// one pool whose resourceSliceCount counts them. `opt` must pass
/// io/dra_options.hpp dra_options_problem().
void dra_resource_slice(std::ostream& out, const gpu_model& g, const dra_options& opt);

}  // namespace migplan::cli::render
