// SPDX-License-Identifier: Apache-2.0
// A small JSON Schema validator for the report schemas: the keywords they use
// (type, const, enum, properties, required, additionalProperties,
// propertyNames, items, minimum, oneOf, local $ref). Any other keyword is an
// error, so a schema cannot silently check less than it says.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fsr::testdata {

// Violations as "<json pointer>: <what>"; empty when `doc` is valid.
std::vector<std::string> validate_json(const nlohmann::json& schema, const nlohmann::json& doc);

}  // namespace fsr::testdata
