#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""test/check_std_includes.py: every public header includes the standard headers whose names it uses.

The header tests (test/CMakeLists.txt) compile each header alone, with the standard library and xsimd
read from a precompiled header: they prove that a header includes the tapeless headers it needs, and
this check proves the rest by name. A header that writes `std::size_t` includes <cstddef> itself, even
where another include brings it in: which standard headers include which others differs between
standard libraries and their versions. A header that names `xsimd::` includes xsimd or a header of
tapeless/simd/. One line per finding, naming the header, the name and the missing include; exits 1 on
any finding. Usage: python3 test/check_std_includes.py [ROOT]  (ROOT: the repository, by default this
script's parent folder's parent).

The table names what the library uses, not the whole standard library: a name outside it is checked
by the compiler only.
"""

import pathlib
import re
import sys

# (a name used, the includes of which one must appear)
NAMES = [
    (r"std::(size_t|ptrdiff_t|byte)\b", ["<cstddef>"]),
    (r"std::u?int(8|16|32|64)_t\b", ["<cstdint>"]),
    (r"std::array\b", ["<array>"]),
    (r"std::(tuple|tuple_size_v|tuple_element_t|forward_as_tuple|tuple_cat|make_tuple|apply)\b", ["<tuple>"]),
    (r"std::vector\b", ["<vector>"]),
    (r"std::(is_same_v|remove_cvref_t|remove_reference_t|conditional_t|enable_if_t|decay_t|is_arithmetic_v"
     r"|is_floating_point_v|is_integral_v|integral_constant|bool_constant|true_type|false_type|is_const_v"
     r"|is_reference_v|is_lvalue_reference_v|common_type_t|invoke_result_t|is_invocable_v"
     r"|is_constant_evaluated|type_identity|is_trivially_copyable_v)\b", ["<type_traits>"]),
    (r"std::(move|forward|declval|index_sequence|make_index_sequence|index_sequence_for|integer_sequence"
     r"|pair|exchange|in_place)\b", ["<utility>"]),
    (r"std::(string|to_string)\b", ["<string>"]),
    (r"std::string_view\b", ["<string_view>"]),
    (r"std::numeric_limits\b", ["<limits>"]),
    (r"std::(invalid_argument|out_of_range|length_error|runtime_error|logic_error)\b", ["<stdexcept>"]),
    (r"std::(min|max|fill|fill_n|copy|copy_n|sort|max_element|min_element|clamp|all_of|any_of|none_of|find"
     r"|equal|reverse)\b", ["<algorithm>"]),
    (r"std::(sqrt|exp|log|sin|cos|tan|pow|fabs|isnan|isinf|isfinite|log1p|expm1|tanh|atan2|fma|floor|ceil"
     r"|hypot|copysign|signbit|lgamma|erf)\b", ["<cmath>"]),
    (r"std::span\b", ["<span>"]),
    (r"std::optional\b", ["<optional>"]),
    (r"std::function\b", ["<functional>"]),
    (r"std::(unique_ptr|make_unique|shared_ptr|addressof)\b", ["<memory>"]),
    (r"std::(same_as|convertible_to|integral|floating_point|invocable|constructible_from|derived_from)\b",
     ["<concepts>"]),
    (r"std::initializer_list\b", ["<initializer_list>"]),
    (r"std::numbers::", ["<numbers>"]),
    (r"std::bit_cast\b", ["<bit>"]),
    (r"\bxsimd::", ["<xsimd/xsimd.hpp>", "<tapeless/simd/"]),
]


def code_of(text):
    """The text without comments and string literals, where names in prose would count."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', text)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    findings = 0
    for header in sorted((root / "include" / "tapeless").rglob("*.hpp")):
        text = header.read_text()
        code = code_of(text)
        includes = re.findall(r"^\s*#\s*include\s+(<[^>]+>)", text, flags=re.M)
        for pattern, wanted in NAMES:
            used = re.search(pattern, code)
            if used and not any(inc.startswith(w) if w.endswith("/") else inc == w
                                for inc in includes for w in wanted):
                print(f"{header.relative_to(root)}: uses {used.group(0)} and does not include {' or '.join(wanted)}")
                findings += 1
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
