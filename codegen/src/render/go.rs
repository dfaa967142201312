//! Go: one module (`go.mod`, Apache Thrift Go v0.17.0 from the module proxy) with a package of
//! typed tables, a runtime package (`redbase/`: key and value encodings, Thrift2 plumbing) and
//! the Thrift compiler's `--gen go` output for idl/hbase2.thrift (`hbase2/`, embedded).

use std::path::{Path, PathBuf};

use handlebars::Handlebars;
use heck::{ToLowerCamelCase, ToUpperCamelCase};

use super::{Language, Naming, Planned, SdkContext};

pub struct Go;

const TEMPLATES: &[(&str, &str)] = &[
    ("go.mod", include_str!("../../templates/go/go.mod.hbs")),
    ("doc", include_str!("../../templates/go/doc.go.hbs")),
    ("tables", include_str!("../../templates/go/tables.go.hbs")),
    ("table", include_str!("../../templates/go/table.go.hbs")),
    (
        "table_writes",
        include_str!("../../templates/go/table_writes.go.hbs"),
    ),
    // Runtime files that import hbase2/ by the module path.
    (
        "client",
        include_str!("../../templates/go/redbase/client.go.hbs"),
    ),
    (
        "conn",
        include_str!("../../templates/go/redbase/conn.go.hbs"),
    ),
    (
        "scan",
        include_str!("../../templates/go/redbase/scan.go.hbs"),
    ),
    (
        "batch",
        include_str!("../../templates/go/redbase/batch.go.hbs"),
    ),
    (
        "drift",
        include_str!("../../templates/go/redbase/drift.go.hbs"),
    ),
    ("readme", include_str!("../../templates/go/README.md.hbs")),
];

/// Runtime files without holes, the same in every Go SDK (package `redbase`).
const RUNTIME: &[(&str, &str)] = &[
    (
        "errors.go",
        include_str!("../../templates/go/redbase/errors.go"),
    ),
    (
        "keys.go",
        include_str!("../../templates/go/redbase/keys.go"),
    ),
    (
        "keys_decode.go",
        include_str!("../../templates/go/redbase/keys_decode.go"),
    ),
    (
        "values.go",
        include_str!("../../templates/go/redbase/values.go"),
    ),
    (
        "json.go",
        include_str!("../../templates/go/redbase/json.go"),
    ),
    (
        "ranges.go",
        include_str!("../../templates/go/redbase/ranges.go"),
    ),
    (
        "bounds.go",
        include_str!("../../templates/go/redbase/bounds.go"),
    ),
    (
        "options.go",
        include_str!("../../templates/go/redbase/options.go"),
    ),
    (
        "filter.go",
        include_str!("../../templates/go/redbase/filter.go"),
    ),
    (
        "versions.go",
        include_str!("../../templates/go/redbase/versions.go"),
    ),
    (
        "writer.go",
        include_str!("../../templates/go/redbase/writer.go"),
    ),
];

/// The Thrift compiler's output (codegen/thrift/generate.sh), package `hbase2`.
const THRIFT: &[(&str, &str)] = &[
    (
        "GoUnusedProtection__.go",
        include_str!("../../thrift/go/hbase2/GoUnusedProtection__.go"),
    ),
    (
        "hbase2-consts.go",
        include_str!("../../thrift/go/hbase2/hbase2-consts.go"),
    ),
    (
        "hbase2.go",
        include_str!("../../thrift/go/hbase2/hbase2.go"),
    ),
];

/// `go.sum` for the one dependency (it cannot hold the header comment).
const GO_SUM: &str =
    "github.com/apache/thrift v0.17.0 h1:cMd2aj52n+8VoAtvSvLn4kDC3aZ6IAkBuqWQ2IDu7wo=
github.com/apache/thrift v0.17.0/go.mod h1:OLxhMRJxomX+1I/KUw03qoV3mMz16BwaKI+d4fPBx7Q=
";

/// The Go module path of a schema package at a version: the package name, with Go's
/// semantic-import suffix `/vN` from major version 2 on (v0 and v1 have none).
pub fn module_path(package: &str, version: &str) -> String {
    let major: u64 = version
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if major >= 2 {
        format!("{package}/v{major}")
    } else {
        package.to_string()
    }
}

/// `{{go_module_path go_module version}}`: the module path with its `/vN`.
fn module_helper(
    h: &handlebars::Helper<'_>,
    _: &Handlebars<'_>,
    _: &handlebars::Context,
    _: &mut handlebars::RenderContext<'_, '_>,
    out: &mut dyn handlebars::Output,
) -> handlebars::HelperResult {
    let arg = |i: usize| {
        h.param(i)
            .and_then(|p| p.value().as_str().map(str::to_string))
            .ok_or_else(|| {
                handlebars::RenderError::from(handlebars::RenderErrorReason::ParamNotFoundForIndex(
                    "go_module_path",
                    i,
                ))
            })
    };
    out.write(&module_path(&arg(0)?, &arg(1)?))?;
    Ok(())
}

/// The Go package name for a schema package: lower case, underscores dropped
/// (`redbase_examples` → `redbaseexamples`); the module path keeps the schema name.
pub fn package_name(package: &str) -> String {
    package.replace('_', "").to_lowercase()
}

impl Language for Go {
    fn name(&self) -> &'static str {
        "go"
    }

    fn naming(&self) -> &'static dyn Naming {
        &GoNaming
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        TEMPLATES
    }

    fn plan<'a>(&self, sdk: &'a SdkContext<'a>) -> Vec<Planned<'a>> {
        let mut out = vec![
            Planned::sdk("go.mod", "go.mod", sdk),
            Planned::verbatim("go.sum", GO_SUM),
            Planned::sdk("doc.go", "doc", sdk),
            Planned::sdk("tables.go", "tables", sdk),
            Planned::sdk("README.md", "readme", sdk),
        ];
        for name in ["client", "conn", "scan", "batch", "drift"] {
            out.push(Planned::sdk(format!("redbase/{name}.go"), name, sdk));
        }
        for (name, text) in RUNTIME {
            out.push(Planned::verbatim(PathBuf::from("redbase").join(name), text));
        }
        for (name, text) in THRIFT {
            out.push(Planned::verbatim(PathBuf::from("hbase2").join(name), text));
        }
        // `_table` keeps ids such as `x_linux` or `y_test` from reading as build constraints or
        // test files.
        out.extend(Planned::per_table(sdk, "table", |id| {
            PathBuf::from(format!("{id}_table.go"))
        }));
        // Batch writes and the buffered writer of each table, apart so files stay readable.
        out.extend(Planned::per_table(sdk, "table_writes", |id| {
            PathBuf::from(format!("{id}_table_writes.go"))
        }));
        out
    }

    /// `{{go_package package}}`: the Go package name of a schema package.
    fn register_helpers(&self, hb: &mut Handlebars<'_>) {
        hb.register_helper("go_package", Box::new(super::string_helper(package_name)));
        hb.register_helper("go_module_path", Box::new(module_helper));
    }

    fn header(&self, path: &Path) -> Option<String> {
        if path.file_name().is_some_and(|n| n == "go.sum") {
            return None;
        }
        if path.extension().is_some_and(|e| e == "md") {
            return Some(format!("<!-- {} -->\n", super::HEADER));
        }
        // A blank line after it, so it never becomes the package's doc comment.
        Some(format!("// {}\n", super::HEADER))
    }
}

pub struct GoNaming;

/// Go's keywords, the predeclared names generated code uses, and the parameter names the
/// templates take for themselves.
const RESERVED: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
    "any",
    "append",
    "bool",
    "byte",
    "cap",
    "copy",
    "error",
    "false",
    "int",
    "int32",
    "int64",
    "len",
    "make",
    "new",
    "nil",
    "string",
    "true",
    "ctx",
    "key",
    "amount",
    "t",
    "err",
    "row",
    "values",
];

/// Initialisms written in one case, as Go code spells them (`user_id` → `UserID`).
const INITIALISMS: &[&str] = &[
    "acl", "api", "ascii", "cpu", "css", "dns", "eof", "guid", "html", "http", "https", "id", "ip",
    "json", "lhs", "qps", "ram", "rhs", "rpc", "sla", "smtp", "sql", "ssh", "tcp", "tls", "ttl",
    "udp", "ui", "uid", "uuid", "uri", "url", "utf8", "vm", "xml", "xmpp", "xsrf", "xss",
];

/// UpperCamel with initialisms upper-cased; `lower_first` makes the first word lower case.
fn camel(name: &str, lower_first: bool) -> String {
    let mut out = String::new();
    for (i, word) in name.split('_').filter(|w| !w.is_empty()).enumerate() {
        let lower = word.to_lowercase();
        if i == 0 && lower_first {
            out.push_str(&word.to_lower_camel_case());
        } else if INITIALISMS.contains(&lower.as_str()) {
            out.push_str(&lower.to_uppercase());
        } else {
            out.push_str(&word.to_upper_camel_case());
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, if lower_first { 'v' } else { 'V' });
    }
    out
}

impl Naming for GoNaming {
    fn type_name(&self, name: &str) -> String {
        camel(name, false)
    }
    /// Methods and struct fields: exported.
    fn func_name(&self, name: &str) -> String {
        camel(name, false)
    }
    /// Parameters and variables: lowerCamel, reserved words suffixed with `_`.
    fn field_name(&self, name: &str) -> String {
        let n = camel(name, true);
        if RESERVED.contains(&n.as_str()) {
            n + "_"
        } else {
            n
        }
    }
    fn const_name(&self, name: &str) -> String {
        camel(name, false)
    }
    fn string_literal(&self, text: &str) -> String {
        let mut s = String::from("\"");
        for c in text.chars() {
            match c {
                '\\' => s.push_str("\\\\"),
                '"' => s.push_str("\\\""),
                c if (' '..='~').contains(&c) => s.push(c),
                c if (c as u32) < 0x80 => s.push_str(&format!("\\x{:02x}", c as u32)),
                c if (c as u32) < 0x10000 => s.push_str(&format!("\\u{:04x}", c as u32)),
                c => s.push_str(&format!("\\U{:08x}", c as u32)),
            }
        }
        s.push('"');
        s
    }
    fn bytes_literal(&self, bytes: &[u8]) -> String {
        let mut s = String::from("[]byte(\"");
        for &b in bytes {
            match b {
                b'\\' => s.push_str("\\\\"),
                b'"' => s.push_str("\\\""),
                b' '..=b'~' => s.push(b as char),
                _ => s.push_str(&format!("\\x{b:02x}")),
            }
        }
        s.push_str("\")");
        s
    }
    fn value_type(&self, scalar: &str) -> String {
        match scalar {
            "string" => "string",
            "bytes" => "[]byte",
            "i32" => "int32",
            "i64" | "timestamp-ms" | "counter" => "int64",
            "f32" => "float32",
            "f64" => "float64",
            "bool" => "bool",
            // An alias of json.RawMessage in the generated package.
            _ => "JSON",
        }
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_go_conventions() {
        let n = GoNaming;
        assert_eq!(n.type_name("access_logs"), "AccessLogs");
        assert_eq!(n.func_name("user_id"), "UserID");
        assert_eq!(n.func_name("page_url"), "PageURL");
        assert_eq!(n.field_name("user_id"), "userID");
        assert_eq!(n.field_name("id"), "id");
        assert_eq!(n.field_name("type"), "type_");
        assert_eq!(n.field_name("range"), "range_");
        assert_eq!(n.const_name("fb_2015"), "Fb2015");
        assert_eq!(package_name("redbase_examples"), "redbaseexamples");
        assert_eq!(module_path("redbase_examples", "0.3.0"), "redbase_examples");
        assert_eq!(module_path("redbase_examples", "1.9.0"), "redbase_examples");
        assert_eq!(
            module_path("redbase_examples", "2.0.1"),
            "redbase_examples/v2"
        );
        assert_eq!(module_path("acme", "12.0.0"), "acme/v12");
        assert_eq!(n.bytes_literal(b"t\x00"), "[]byte(\"t\\x00\")");
        assert_eq!(n.string_literal("a\"é\n"), "\"a\\\"\\u00e9\\x0a\"");
    }
}
