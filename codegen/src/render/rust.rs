//! Rust: a standalone crate (its own `[workspace]`) with typed key, value, row and table
//! types, the `thrift` crate (=0.17.0, Apache's) as the runtime, and the Thrift compiler's
//! `--gen rs` output for idl/hbase2.thrift embedded unedited.

use std::path::{Path, PathBuf};

use handlebars::{
    Context, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext, RenderError,
    Renderable, StringOutput,
};
use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

use super::{Language, Naming, Planned, SdkContext};

pub struct Rust;

const TEMPLATES: &[(&str, &str)] = &[
    ("cargo", include_str!("../../templates/rust/Cargo.toml.hbs")),
    ("lib", include_str!("../../templates/rust/lib.rs.hbs")),
    ("readme", include_str!("../../templates/rust/README.md.hbs")),
    ("table", include_str!("../../templates/rust/table.rs.hbs")),
    // Partials of `table` (`{{> table_key}}` ...): the key types, the decoded key, the values,
    // the typed table.
    (
        "table_key",
        include_str!("../../templates/rust/table_key.rs.hbs"),
    ),
    (
        "table_key_parts",
        include_str!("../../templates/rust/table_key_parts.rs.hbs"),
    ),
    (
        "table_values",
        include_str!("../../templates/rust/table_values.rs.hbs"),
    ),
    (
        "table_access",
        include_str!("../../templates/rust/table_access.rs.hbs"),
    ),
];

/// Runtime modules: templates without holes, the same in every Rust SDK.
const RUNTIME: &[(&str, &str)] = &[
    (
        "mod.rs",
        include_str!("../../templates/rust/runtime/mod.rs"),
    ),
    (
        "error.rs",
        include_str!("../../templates/rust/runtime/error.rs"),
    ),
    (
        "keys.rs",
        include_str!("../../templates/rust/runtime/keys.rs"),
    ),
    (
        "bounds.rs",
        include_str!("../../templates/rust/runtime/bounds.rs"),
    ),
    (
        "key_fields.rs",
        include_str!("../../templates/rust/runtime/key_fields.rs"),
    ),
    (
        "values.rs",
        include_str!("../../templates/rust/runtime/values.rs"),
    ),
    (
        "client.rs",
        include_str!("../../templates/rust/runtime/client.rs"),
    ),
    (
        "scan.rs",
        include_str!("../../templates/rust/runtime/scan.rs"),
    ),
    (
        "table.rs",
        include_str!("../../templates/rust/runtime/table.rs"),
    ),
    (
        "filter.rs",
        include_str!("../../templates/rust/runtime/filter.rs"),
    ),
    (
        "batch.rs",
        include_str!("../../templates/rust/runtime/batch.rs"),
    ),
    (
        "writer.rs",
        include_str!("../../templates/rust/runtime/writer.rs"),
    ),
    (
        "drift.rs",
        include_str!("../../templates/rust/runtime/drift.rs"),
    ),
];

impl Language for Rust {
    fn name(&self) -> &'static str {
        "rust"
    }

    fn naming(&self) -> &'static dyn Naming {
        &RustNaming
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        TEMPLATES
    }

    fn plan<'a>(&self, sdk: &'a SdkContext<'a>) -> Vec<Planned<'a>> {
        let src = PathBuf::from("src");
        let mut out = vec![
            Planned::sdk("Cargo.toml", "cargo", sdk),
            Planned::verbatim(".gitignore", "/target\n/Cargo.lock\n"),
            Planned::sdk(src.join("lib.rs"), "lib", sdk),
            Planned::sdk("README.md", "readme", sdk),
            Planned::verbatim(
                src.join("thrift_gen/mod.rs"),
                include_str!("../../templates/rust/thrift_gen.rs"),
            ),
            Planned::verbatim(
                src.join("thrift_gen/hbase2.rs"),
                include_str!("../../thrift/rust/hbase2.rs"),
            ),
        ];
        for (name, text) in RUNTIME {
            out.push(Planned::verbatim(src.join("runtime").join(name), text));
        }
        out.extend(Planned::per_table(sdk, "table", move |id| {
            src.join(format!("{id}.rs"))
        }));
        out
    }

    fn register_helpers(&self, hb: &mut Handlebars<'_>) {
        hb.register_helper("fit", Box::new(Fit));
        hb.register_helper("snake_head", Box::new(snake_head));
    }

    fn header(&self, path: &Path) -> Option<String> {
        let rust = path.extension().is_some_and(|e| e == "rs");
        if path.extension().is_some_and(|e| e == "md") {
            return Some(format!("<!-- {} -->", super::HEADER));
        }
        Some(format!(
            "{} {}",
            if rust { "//" } else { "#" },
            super::HEADER
        ))
    }
}

pub struct RustNaming;

/// Strict and reserved keywords (2021 edition, plus `gen` of 2024).
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super"];

/// A standalone identifier: `r#type`, or `self_` where a raw identifier is not allowed.
fn raw(name: String) -> String {
    if NOT_RAW.contains(&name.as_str()) {
        name + "_"
    } else if KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

// `{{snake_head c}}_between`: the start of an identifier text is glued after, in snake case
// (never a keyword once the suffix follows).
handlebars::handlebars_helper!(snake_head: |name: str| name.to_snake_case());

/// An identifier other text may be glued to (`increment_{{func_name f}}`): keyword + `_`.
fn suffixed(name: String) -> String {
    if KEYWORDS.contains(&name.as_str()) {
        name + "_"
    } else {
        name
    }
}

impl Naming for RustNaming {
    fn type_name(&self, name: &str) -> String {
        suffixed(name.to_upper_camel_case())
    }
    fn func_name(&self, name: &str) -> String {
        suffixed(name.to_snake_case())
    }
    fn field_name(&self, name: &str) -> String {
        raw(name.to_snake_case())
    }
    fn const_name(&self, name: &str) -> String {
        name.to_shouty_snake_case()
    }
    fn string_literal(&self, text: &str) -> String {
        let mut s = String::from("\"");
        for c in text.chars() {
            match c {
                '\\' => s.push_str("\\\\"),
                '"' => s.push_str("\\\""),
                c if (' '..='~').contains(&c) => s.push(c),
                c => s.push_str(&format!("\\u{{{:x}}}", c as u32)),
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
            "string" => "String",
            "bytes" => "Vec<u8>",
            "i32" => "i32",
            "i64" | "timestamp-ms" | "counter" => "i64",
            "f32" => "f32",
            "f64" => "f64",
            "bool" => "bool",
            _ => "serde_json::Value",
        }
        .to_string()
    }
}

/// rustfmt's line limit (`max_width`).
const MAX_WIDTH: usize = 100;

/// rustfmt's `short_array_element_width_threshold`: lists of items this short are packed.
const SHORT_ITEM: usize = 10;

/// `{{#fit N}}...{{/fit}}`: the block is written one item per line (an opening line ending in
/// `(`, `[` or `{`, the items, a closing line); it comes out on one line where rustfmt would
/// put it there: the joined line fits `MAX_WIDTH` and the items fit `N` characters (rustfmt's
/// `fn_call_width`, `array_width`, `struct_lit_width`; no `N`: signatures, only the line).
/// This keeps the generated crate `cargo fmt --check` clean whatever the schema's names.
struct Fit;

impl HelperDef for Fit {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        r: &'reg Handlebars<'reg>,
        ctx: &'rc Context,
        rc: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let limit = h
            .param(0)
            .and_then(|p| p.value().as_u64())
            .map(|n| n as usize);
        let mode = h.param(1).and_then(|p| p.value().as_str());
        let block = h.template().ok_or_else(|| {
            RenderError::from(handlebars::RenderErrorReason::BlockContentRequired)
        })?;
        let mut text = StringOutput::new();
        block.render(r, ctx, rc, &mut text)?;
        let text = text.into_string()?;
        let text = match mode {
            Some("wrap") => wrap(&text),
            _ => fit(&text, limit, mode == Some("mixed")),
        };
        out.write(&text)?;
        Ok(())
    }
}

/// `{{#fit 0 "wrap"}}`: a statement written as two lines (broken after `=`) comes out on one
/// line if that fits `MAX_WIDTH`, as rustfmt does.
pub fn wrap(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    match lines.as_slice() {
        [first, second] if first.len() + 1 + second.trim().len() <= MAX_WIDTH => {
            format!("{first} {}\n", second.trim())
        }
        _ => text.to_string(),
    }
}

/// The one-line form of a vertical block, if rustfmt would choose it; else the block as is,
/// or with `mixed` (a list) and only short items, the items packed into full lines.
pub fn fit(text: &str, limit: Option<usize>, mixed: bool) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let [first, items @ .., last] = lines.as_slice() else {
        return text.to_string();
    };
    let nested = items.iter().any(|l| {
        let l = l.trim();
        l.starts_with("//") || l.ends_with(['(', '[', '{']) || l.starts_with([')', ']', '}'])
    });
    if items.is_empty() || nested || !first.ends_with(['(', '[', '{']) {
        return text.to_string();
    }
    let inner = items
        .iter()
        .map(|l| l.trim().trim_end_matches(','))
        .collect::<Vec<_>>()
        .join(", ");
    let pad = if first.ends_with('{') { " " } else { "" };
    let line = format!("{first}{pad}{inner}{pad}{}", last.trim_start());
    let lead = if text.starts_with('\n') { "\n" } else { "" };
    if line.len() <= MAX_WIDTH && limit.is_none_or(|n| inner.len() <= n) {
        return format!("{lead}{line}\n");
    }
    let short = |l: &&str| l.trim().trim_end_matches(',').len() <= SHORT_ITEM;
    if !mixed || !items.iter().all(short) {
        return text.to_string();
    }
    // rustfmt's "mixed" list layout: as many items per line as fit, each followed by a comma.
    let indent = &items[0][..items[0].len() - items[0].trim_start().len()];
    let mut out = format!("{lead}{first}\n");
    let mut row = String::new();
    for item in items {
        let item = format!("{},", item.trim().trim_end_matches(','));
        if !row.is_empty() && indent.len() + row.len() + 1 + item.len() > MAX_WIDTH {
            out.push_str(&format!("{indent}{row}\n"));
            row.clear();
        }
        if !row.is_empty() {
            row.push(' ');
        }
        row.push_str(&item);
    }
    out.push_str(&format!("{indent}{row}\n{last}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_become_raw_identifiers_or_get_a_suffix() {
        let n = RustNaming;
        assert_eq!(n.field_name("type"), "r#type");
        assert_eq!(n.field_name("self"), "self_");
        assert_eq!(n.func_name("match"), "match_");
        assert_eq!(n.type_name("self"), "Self_");
        assert_eq!(n.field_name("user_id"), "user_id");
        assert_eq!(
            n.string_literal("a\"\\日\n"),
            "\"a\\\"\\\\\\u{65e5}\\u{a}\""
        );
        assert_eq!(n.bytes_literal(&[b't', 0xff, b'"']), "b\"t\\xff\\\"\"");
    }

    #[test]
    fn fit_joins_what_rustfmt_would_put_on_one_line() {
        let sig = "    pub fn new(\n        a: i32,\n        b: String,\n    ) -> Self {\n";
        assert_eq!(
            fit(sig, None, false),
            "    pub fn new(a: i32, b: String) -> Self {\n"
        );
        let lit = "        Key {\n            a: a.into(),\n        }\n";
        assert_eq!(fit(lit, Some(18), false), "        Key { a: a.into() }\n");
        let wide = "        Key {\n            abcdef: abcdef.into(),\n        }\n";
        assert_eq!(
            fit(wide, Some(18), false),
            wide,
            "items wider than the limit"
        );
        let nested = "    x: &[\n        Foo {\n            a: 1,\n        },\n    ],\n";
        assert_eq!(fit(nested, None, false), nested, "nested blocks stay");
    }

    #[test]
    fn fit_packs_short_items_as_rustfmt_mixed_lists() {
        let items: String = (0..20).map(|i| format!("    b\"\\x{i:02x}\",\n")).collect();
        let text = format!("pub const S: &[&[u8]] = &[\n{items}];\n");
        let out = fit(&text, Some(60), true);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(lines[1..3]
            .iter()
            .all(|l| l.len() <= MAX_WIDTH && l.ends_with(',')));
    }
}
