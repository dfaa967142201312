//! Python: a package with typed dataclasses (mypy --strict), the Apache `thrift` runtime from
//! PyPI, and the Thrift compiler's `--gen py` output for idl/hbase2.thrift embedded.

use std::path::{Path, PathBuf};

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

use super::{Language, Naming, Planned, SdkContext};

pub struct Python;

const TEMPLATES: &[(&str, &str)] = &[
    (
        "pyproject",
        include_str!("../../templates/python/pyproject.toml.hbs"),
    ),
    (
        "init",
        include_str!("../../templates/python/__init__.py.hbs"),
    ),
    ("table", include_str!("../../templates/python/table.py.hbs")),
    (
        "readme",
        include_str!("../../templates/python/README.md.hbs"),
    ),
];

/// Runtime modules: templates without holes, the same in every Python SDK.
const RUNTIME: &[(&str, &str)] = &[
    (
        "__init__.py",
        include_str!("../../templates/python/runtime/__init__.py"),
    ),
    (
        "keys.py",
        include_str!("../../templates/python/runtime/keys.py"),
    ),
    (
        "values.py",
        include_str!("../../templates/python/runtime/values.py"),
    ),
    (
        "client.py",
        include_str!("../../templates/python/runtime/client.py"),
    ),
    (
        "batch.py",
        include_str!("../../templates/python/runtime/batch.py"),
    ),
    (
        "filters.py",
        include_str!("../../templates/python/runtime/filters.py"),
    ),
    (
        "drift.py",
        include_str!("../../templates/python/runtime/drift.py"),
    ),
];

/// The Thrift compiler's output (codegen/thrift/generate.sh).
const THRIFT: &[(&str, &str)] = &[
    (
        "__init__.py",
        include_str!("../../thrift/python/hbase2/__init__.py"),
    ),
    (
        "THBaseService.py",
        include_str!("../../thrift/python/hbase2/THBaseService.py"),
    ),
    (
        "constants.py",
        include_str!("../../thrift/python/hbase2/constants.py"),
    ),
    (
        "ttypes.py",
        include_str!("../../thrift/python/hbase2/ttypes.py"),
    ),
];

impl Language for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn naming(&self) -> &'static dyn Naming {
        &PythonNaming
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        TEMPLATES
    }

    fn plan<'a>(&self, sdk: &'a SdkContext<'a>) -> Vec<Planned<'a>> {
        let pkg = PathBuf::from(sdk.package);
        let mut out = vec![
            Planned::sdk("pyproject.toml", "pyproject", sdk),
            Planned::sdk("README.md", "readme", sdk),
            Planned::sdk(pkg.join("__init__.py"), "init", sdk),
            Planned::verbatim(pkg.join("py.typed"), ""),
            Planned::verbatim(
                pkg.join("_thrift/__init__.py"),
                "\"\"\"The Thrift compiler's output for idl/hbase2.thrift.\"\"\"\n",
            ),
        ];
        for (name, text) in RUNTIME {
            out.push(Planned::verbatim(pkg.join("_runtime").join(name), text));
        }
        for (name, text) in THRIFT {
            out.push(Planned::verbatim(
                pkg.join("_thrift/hbase2").join(name),
                text,
            ));
        }
        out.extend(Planned::per_table(sdk, "table", move |id| {
            pkg.join(format!("{id}.py"))
        }));
        out
    }

    fn register_helpers(&self, hb: &mut handlebars::Handlebars<'_>) {
        hb.register_helper("scan_param", Box::new(super::string_helper(scan_param)));
    }

    fn header(&self, path: &Path) -> Option<String> {
        if path.extension().is_some_and(|e| e == "md") {
            return Some(format!("<!-- {} -->\n", super::HEADER));
        }
        Some(format!("# {}", super::HEADER))
    }
}

/// The options of a generated `scan()`; a key component of the same name becomes a keyword
/// with a trailing `_` there (`scan(limit_=...)`), so the signature stays valid Python.
const SCAN_OPTIONS: &[&str] = &[
    "self",
    "keys",
    "columns",
    "filter",
    "limit",
    "reversed",
    "caching",
    "batch_size",
    "versions",
    "time_range",
    "bucket_order",
    "given",
    "decode",
    "rows",
];

/// A key component's keyword in `scan()`.
fn scan_param(name: &str) -> String {
    let field = PythonNaming.field_name(name);
    if SCAN_OPTIONS.contains(&field.as_str()) {
        field + "_"
    } else {
        field
    }
}

pub struct PythonNaming;

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "match", "case", "type",
];

fn escape(name: String) -> String {
    if KEYWORDS.contains(&name.as_str()) {
        name + "_"
    } else {
        name
    }
}

impl Naming for PythonNaming {
    fn type_name(&self, name: &str) -> String {
        escape(name.to_upper_camel_case())
    }
    fn func_name(&self, name: &str) -> String {
        escape(name.to_snake_case())
    }
    fn field_name(&self, name: &str) -> String {
        escape(name.to_snake_case())
    }
    fn const_name(&self, name: &str) -> String {
        escape(name.to_shouty_snake_case())
    }
    fn string_literal(&self, text: &str) -> String {
        let mut s = String::from("\"");
        for c in text.chars() {
            match c {
                '\\' => s.push_str("\\\\"),
                '"' => s.push_str("\\\""),
                c if (' '..='~').contains(&c) => s.push(c),
                c if (c as u32) < 0x100 => s.push_str(&format!("\\x{:02x}", c as u32)),
                c if (c as u32) < 0x10000 => s.push_str(&format!("\\u{:04x}", c as u32)),
                c => s.push_str(&format!("\\U{:08x}", c as u32)),
            }
        }
        s.push('"');
        s
    }
    fn bytes_literal(&self, bytes: &[u8]) -> String {
        let mut s = String::from("b\"");
        for &b in bytes {
            match b {
                b'\\' => s.push_str("\\\\"),
                b'"' => s.push_str("\\\""),
                b' '..=b'~' => s.push(b as char),
                _ => s.push_str(&format!("\\x{b:02x}")),
            }
        }
        s.push('"');
        s
    }
    fn value_type(&self, scalar: &str) -> String {
        match scalar {
            "string" => "str",
            "bytes" => "bytes",
            "i32" | "i64" | "timestamp-ms" | "counter" => "int",
            "f32" | "f64" => "float",
            "bool" => "bool",
            _ => "Json",
        }
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::scan_param;

    #[test]
    fn scan_keywords_never_collide_with_scan_options() {
        assert_eq!(scan_param("user_id"), "user_id");
        assert_eq!(scan_param("limit"), "limit_");
        assert_eq!(scan_param("batchSize"), "batch_size_");
        assert_eq!(
            scan_param("class"),
            "class_",
            "Python keywords stay escaped"
        );
    }
}
