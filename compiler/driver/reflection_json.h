#pragma once
// The reflection as JSON: what `slopec -reflection-json FILE` writes, and the reader
// that turns it back into the same driver::Reflection (tools and tests that load a
// compiled module without compiling it). One document:
//
//   { "entry_points": [ { "name": "main", "numthreads": [64, 1, 1] } ],
//     "parameters": [
//       { "name": "Params", "kind": "uniform_buffer", "set": 0, "binding": 0,
//         "type": "Params", "size": 32, "stride": 32,
//         "fields": [ { "name": "scale", "type": "float", "offset": 0 }, ... ] },
//       { "name": "output", "kind": "rw_storage_buffer", "set": 0, "binding": 1,
//         "type": "float", "size": 4, "stride": 4 },
//       { "name": "main.uniforms", "kind": "push_constant", "entry_point": "main", ... } ] }
//
// An entry point with [WaveSize(n)] also has "wave_size": n (the subgroup size it must
// run with). "kind" is storage_buffer, rw_storage_buffer, uniform_buffer or push_constant. A
// parameter's "type" is its element type (a buffer's element; a uniform buffer's or
// push-constant block's struct), "size" its bytes and "stride" the bytes between
// elements; "fields" lists a struct's members flattened ("inner.x", "w[1]", a matrix row
// by row), each with its type, its byte offset in the element and, for the columns of a
// column-major matrix row, "component_stride". A matrix element has "rows", "row_step"
// and "component_stride". A module using user-defined attributes also has
// "user_attributes": [ { "name": "MaxValue", "target_kind": "var", "target": "s",
// "arguments": [ { "type": "int", "value": 12 }, { "type": "string", "value": "x" } ] } ]
// ("target_kind" var, field, function, param or struct).

#include <string>
#include <string_view>

#include "compiler/driver/reflection.h"

namespace slope::driver {

/// Writes `reflection` as the JSON document above (indented, ending in a newline).
std::string ReflectionToJson(const Reflection& reflection);

/// Reads a document written by ReflectionToJson into `*out`. On malformed input returns
/// false with `*error` saying what is wrong and where; never throws.
bool ReflectionFromJson(std::string_view text, Reflection* out, std::string* error);

}  // namespace slope::driver
