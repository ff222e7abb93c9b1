// SPDX-License-Identifier: Apache-2.0
#pragma once

/// \file migplan.hpp
/// Umbrella header: includes every public header of the migplan core.

// One line per public header (clang-format keeps them sorted); add new concepts as they land.
#include <migplan/capacity.hpp>      // free, reachable and stranded capacity; what can be added
#include <migplan/catalog.hpp>       // built-in models and lookups
#include <migplan/compute.hpp>       // compute instances inside a GPU instance
#include <migplan/configs.hpp>       // geometries a generated mig-parted config offers
#include <migplan/counters.hpp>      // the rules as shared counters (Kubernetes DRA)
#include <migplan/driver_order.hpp>  // creation orders; the driver's own placement choice
#include <migplan/enumerate.hpp>     // every feasible geometry of a model
#include <migplan/explain.hpp>       // why a request does not fit, closest fits
#include <migplan/gpu.hpp>           // gpu_model, profile, placement units, provenance
#include <migplan/layout.hpp>        // requests (items) and layouts (instances)
#include <migplan/lookup.hpp>        // models and profiles by slug, PCI ID, name, over a list
#include <migplan/moves.hpp>         // the fewest instance moves that make room (defragmentation)
#include <migplan/replay.hpp>        // demand over time: replay a trace under a policy
#include <migplan/rules.hpp>         // the feasibility rules and engine budgets
#include <migplan/search.hpp>        // the exact placement search
#include <migplan/sizing.hpp>        // smallest profile for a need
