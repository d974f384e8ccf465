// SPDX-License-Identifier: Apache-2.0
#include "tests/report/json_schema.h"

#include <set>

namespace fsr::testdata {
namespace {

using nlohmann::json;

bool has_type(const json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "integer") return v.is_number_integer();
  if (t == "number") return v.is_number();
  throw std::runtime_error("schema: unknown type " + t);
}

class Validator {
 public:
  explicit Validator(const json& root) : root_(root) {}

  void check(const json& s, const json& v, const std::string& at, std::vector<std::string>& errs) const {
    static const std::set<std::string> kAnnotations = {"$schema", "$id", "title", "description", "$defs"};
    for (const auto& [k, _] : s.items()) {
      static const std::set<std::string> kKnown = {
          "type",          "const", "enum",    "properties", "required", "additionalProperties",
          "propertyNames", "items", "minimum", "maximum",    "minItems", "maxItems",
          "oneOf",         "$ref"};
      if (!kKnown.count(k) && !kAnnotations.count(k)) throw std::runtime_error("schema: unsupported keyword " + k);
    }
    if (s.contains("$ref")) {
      const std::string ref = s["$ref"];
      const std::string prefix = "#/$defs/";
      if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("schema: only local $ref: " + ref);
      check(root_["$defs"].at(ref.substr(prefix.size())), v, at, errs);
    }
    if (s.contains("type")) {
      bool ok = false;
      if (s["type"].is_array()) {
        for (const auto& t : s["type"]) ok = ok || has_type(v, t);
      } else {
        ok = has_type(v, s["type"]);
      }
      if (!ok) {
        errs.push_back(at + ": type " + std::string(v.type_name()) + ", want " + s["type"].dump());
        return;
      }
    }
    if (s.contains("const") && v != s["const"]) errs.push_back(at + ": want " + s["const"].dump());
    if (s.contains("enum")) {
      bool ok = false;
      for (const auto& e : s["enum"]) ok = ok || v == e;
      if (!ok) errs.push_back(at + ": " + v.dump() + " not in enum");
    }
    if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>())
      errs.push_back(at + ": " + v.dump() + " below minimum " + s["minimum"].dump());
    if (s.contains("maximum") && v.is_number() && v.get<double>() > s["maximum"].get<double>())
      errs.push_back(at + ": " + v.dump() + " above maximum " + s["maximum"].dump());
    if (s.contains("minItems") && v.is_array() && v.size() < s["minItems"].get<size_t>())
      errs.push_back(at + ": " + std::to_string(v.size()) + " items, want at least " + s["minItems"].dump());
    if (s.contains("maxItems") && v.is_array() && v.size() > s["maxItems"].get<size_t>())
      errs.push_back(at + ": " + std::to_string(v.size()) + " items, want at most " + s["maxItems"].dump());
    if (s.contains("oneOf")) {
      int matches = 0;
      for (const auto& alt : s["oneOf"]) {
        std::vector<std::string> sub;
        check(alt, v, at, sub);
        matches += sub.empty();
      }
      if (matches != 1) errs.push_back(at + ": matches " + std::to_string(matches) + " of oneOf, want 1");
    }
    if (v.is_object()) {
      if (s.contains("required"))
        for (const auto& k : s["required"])
          if (!v.contains(k.get<std::string>())) errs.push_back(at + ": missing key " + k.get<std::string>());
      for (const auto& [k, child] : v.items()) {
        const std::string cat = at + "/" + k;
        if (s.contains("propertyNames")) check(s["propertyNames"], json(k), cat, errs);
        if (s.contains("properties") && s["properties"].contains(k)) {
          check(s["properties"][k], child, cat, errs);
        } else if (s.contains("additionalProperties")) {
          const json& ap = s["additionalProperties"];
          if (ap.is_boolean()) {
            if (!ap.get<bool>()) errs.push_back(cat + ": unexpected key");
          } else {
            check(ap, child, cat, errs);
          }
        }
      }
    }
    if (v.is_array() && s.contains("items"))
      for (size_t i = 0; i < v.size(); ++i) check(s["items"], v[i], at + "/" + std::to_string(i), errs);
  }

 private:
  const json& root_;
};

}  // namespace

std::vector<std::string> validate_json(const nlohmann::json& schema, const nlohmann::json& doc) {
  std::vector<std::string> errs;
  Validator(schema).check(schema, doc, "", errs);
  return errs;
}

}  // namespace fsr::testdata
