// SPDX-License-Identifier: Apache-2.0
#pragma once

// `migplan import`'s output: a model file (schema/model.schema.json), the
// same JSON a user may write by hand and --gpu-file reads.

#include <string>

#include "model/model_spec.hpp"

namespace migplan::cli::render {

/// The model as one indented JSON document (schema_version 1), every member
/// written: unknown values as null, nothing inferred as an empty list.
std::string model_json(const model_spec& spec);

}  // namespace migplan::cli::render
