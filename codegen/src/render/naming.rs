//! The naming provider a language supplies: how schema names become the language's type,
//! function, field and constant names, and how literals are spelt. Registered as Handlebars
//! helpers under the same names, so templates never case-convert or escape by themselves.

use handlebars::Handlebars;

/// Names and literals for one language. Inputs are schema names (snake_case identifiers).
pub trait Naming: Sync {
    /// `type_name`: a type (`access_logs` → `AccessLogs` in Python and Go).
    fn type_name(&self, name: &str) -> String;
    /// `func_name`: a function or method.
    fn func_name(&self, name: &str) -> String;
    /// `field_name`: a field, parameter or variable.
    fn field_name(&self, name: &str) -> String;
    /// `const_name`: a constant.
    fn const_name(&self, name: &str) -> String;
    /// `str_lit`: a string literal holding exactly `text`.
    fn string_literal(&self, text: &str) -> String;
    /// `bytes_lit`: a byte-string literal; templates pass the bytes as hex.
    fn bytes_literal(&self, bytes: &[u8]) -> String;
    /// `value_type`: the language type of a schema scalar type (`i64` → `int`).
    fn value_type(&self, scalar: &str) -> String;
}

pub(super) fn register(hb: &mut Handlebars<'_>, n: &'static dyn Naming) {
    use super::string_helper as h;
    hb.register_helper("type_name", Box::new(h(move |s| n.type_name(s))));
    hb.register_helper("func_name", Box::new(h(move |s| n.func_name(s))));
    hb.register_helper("field_name", Box::new(h(move |s| n.field_name(s))));
    hb.register_helper("const_name", Box::new(h(move |s| n.const_name(s))));
    hb.register_helper("str_lit", Box::new(h(move |s| n.string_literal(s))));
    hb.register_helper(
        "bytes_lit",
        Box::new(h(move |s| {
            n.bytes_literal(&crate::hex::decode(s).unwrap_or_default())
        })),
    );
    hb.register_helper("value_type", Box::new(h(move |s| n.value_type(s))));
}
