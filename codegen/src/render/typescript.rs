//! TypeScript: an npm package (CommonJS build plus an ES module entry point re-exporting it,
//! `.d.ts` types, `tsc --strict` clean) with a Promise API, i64 values as `bigint`, the Apache `thrift` runtime from npm, and the Thrift compiler's
//! `--gen js:node,ts` output for idl/hbase2.thrift embedded under `thrift/`.

use std::path::{Path, PathBuf};

use heck::{ToLowerCamelCase, ToShoutySnakeCase, ToUpperCamelCase};

use super::{Language, Naming, Planned, SdkContext};

pub struct TypeScript;

const TEMPLATES: &[(&str, &str)] = &[
    (
        "package",
        include_str!("../../templates/typescript/package.json.hbs"),
    ),
    (
        "index",
        include_str!("../../templates/typescript/index.ts.hbs"),
    ),
    (
        "table",
        include_str!("../../templates/typescript/table.ts.hbs"),
    ),
    (
        "readme",
        include_str!("../../templates/typescript/README.md.hbs"),
    ),
];

/// Files without holes, the same in every TypeScript SDK.
const VERBATIM: &[(&str, &str)] = &[
    (
        "tsconfig.json",
        include_str!("../../templates/typescript/tsconfig.json"),
    ),
    (
        "scripts/build-esm.cjs",
        include_str!("../../templates/typescript/scripts/build-esm.cjs"),
    ),
    (
        "src/runtime/keys.ts",
        include_str!("../../templates/typescript/runtime/keys.ts"),
    ),
    (
        "src/runtime/bounds.ts",
        include_str!("../../templates/typescript/runtime/bounds.ts"),
    ),
    (
        "src/runtime/values.ts",
        include_str!("../../templates/typescript/runtime/values.ts"),
    ),
    (
        "src/runtime/client.ts",
        include_str!("../../templates/typescript/runtime/client.ts"),
    ),
    (
        "src/runtime/connection.ts",
        include_str!("../../templates/typescript/runtime/connection.ts"),
    ),
    (
        "src/runtime/batch.ts",
        include_str!("../../templates/typescript/runtime/batch.ts"),
    ),
    (
        "src/runtime/filters.ts",
        include_str!("../../templates/typescript/runtime/filters.ts"),
    ),
    (
        "src/runtime/scan.ts",
        include_str!("../../templates/typescript/runtime/scan.ts"),
    ),
    (
        "src/runtime/drift.ts",
        include_str!("../../templates/typescript/runtime/drift.ts"),
    ),
    (
        "src/runtime/writer.ts",
        include_str!("../../templates/typescript/runtime/writer.ts"),
    ),
    // The Thrift compiler's output (codegen/thrift/generate.sh), CommonJS with declarations.
    (
        "thrift/THBaseService.js",
        include_str!("../../thrift/typescript/THBaseService.js"),
    ),
    (
        "thrift/THBaseService.d.ts",
        include_str!("../../thrift/typescript/THBaseService.d.ts"),
    ),
    (
        "thrift/hbase2_types.js",
        include_str!("../../thrift/typescript/hbase2_types.js"),
    ),
    (
        "thrift/hbase2_types.d.ts",
        include_str!("../../thrift/typescript/hbase2_types.d.ts"),
    ),
];

impl Language for TypeScript {
    fn name(&self) -> &'static str {
        "typescript"
    }

    fn naming(&self) -> &'static dyn Naming {
        &TypeScriptNaming
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        TEMPLATES
    }

    fn plan<'a>(&self, sdk: &'a SdkContext<'a>) -> Vec<Planned<'a>> {
        let mut out = vec![
            Planned::sdk("package.json", "package", sdk),
            Planned::sdk("README.md", "readme", sdk),
            Planned::sdk("src/index.ts", "index", sdk),
        ];
        for (path, text) in VERBATIM {
            out.push(Planned::verbatim(*path, text));
        }
        out.extend(Planned::per_table(sdk, "table", |id| {
            PathBuf::from(format!("src/{id}.ts"))
        }));
        out
    }

    /// `//` comments everywhere but package.json (tsconfig.json is JSON with comments) and
    /// the README (an HTML comment).
    fn header(&self, path: &Path) -> Option<String> {
        if path.extension().is_some_and(|e| e == "md") {
            return Some(format!("<!-- {} -->\n", super::HEADER));
        }
        (path != Path::new("package.json")).then(|| format!("// {}", super::HEADER))
    }
}

pub struct TypeScriptNaming;

/// Reserved words of JavaScript and TypeScript (including strict mode and contextual type
/// names) that cannot name a variable or parameter; generated names get a `_` after them.
const KEYWORDS: &[&str] = &[
    "any",
    "arguments",
    "as",
    "async",
    "await",
    "boolean",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "constructor",
    "continue",
    "debugger",
    "declare",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "from",
    "function",
    "get",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "is",
    "keyof",
    "let",
    "module",
    "namespace",
    "never",
    "new",
    "null",
    "number",
    "object",
    "of",
    "package",
    "private",
    "protected",
    "public",
    "readonly",
    "require",
    "return",
    "set",
    "static",
    "string",
    "super",
    "switch",
    "symbol",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "undefined",
    "unique",
    "unknown",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

fn escape(name: String) -> String {
    if KEYWORDS.contains(&name.as_str()) {
        name + "_"
    } else {
        name
    }
}

impl Naming for TypeScriptNaming {
    fn type_name(&self, name: &str) -> String {
        escape(name.to_upper_camel_case())
    }
    fn func_name(&self, name: &str) -> String {
        escape(name.to_lower_camel_case())
    }
    fn field_name(&self, name: &str) -> String {
        escape(name.to_lower_camel_case())
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
                c if (c as u32) < 0x10000 => s.push_str(&format!("\\u{:04x}", c as u32)),
                c => s.push_str(&format!("\\u{{{:x}}}", c as u32)),
            }
        }
        s.push('"');
        s
    }
    /// Printable ASCII as text (`Buffer.from("t")`), anything else as hex.
    fn bytes_literal(&self, bytes: &[u8]) -> String {
        if bytes
            .iter()
            .all(|b| (b' '..=b'~').contains(b) && *b != b'"' && *b != b'\\')
        {
            format!("Buffer.from(\"{}\")", String::from_utf8_lossy(bytes))
        } else {
            format!("Buffer.from(\"{}\", \"hex\")", crate::hex::encode(bytes))
        }
    }
    fn value_type(&self, scalar: &str) -> String {
        match scalar {
            "string" => "string",
            "bytes" => "Uint8Array",
            "i32" | "f32" | "f64" => "number",
            "i64" | "timestamp-ms" | "counter" => "bigint",
            "bool" => "boolean",
            _ => "_v.Json",
        }
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_typescript_conventions() {
        let n = TypeScriptNaming;
        assert_eq!(n.type_name("access_logs"), "AccessLogs");
        assert_eq!(n.func_name("last_seen"), "lastSeen");
        assert_eq!(n.field_name("user_id"), "userId");
        assert_eq!(n.field_name("delete"), "delete_");
        assert_eq!(n.field_name("type"), "type_");
        assert_eq!(n.field_name("in"), "in_");
        assert_eq!(n.const_name("access_logs"), "ACCESS_LOGS");
        assert_eq!(n.value_type("counter"), "bigint");
        assert_eq!(n.value_type("i32"), "number");
        assert_eq!(n.bytes_literal(b"t"), "Buffer.from(\"t\")");
        assert_eq!(n.bytes_literal(b"t\x00"), "Buffer.from(\"7400\", \"hex\")");
        assert_eq!(
            n.string_literal("a\"\u{e9}\n\u{1f600}"),
            "\"a\\\"\\u00e9\\u000a\\u{1f600}\""
        );
    }
}
