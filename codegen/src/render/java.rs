//! Java: a Maven project (Java 17) with one class per table holding typed records for keys and
//! rows and a table client, a runtime package `org.redbase.sdk` (the same in every Java SDK),
//! and the Thrift compiler's `--gen java` output for idl/hbase2.thrift (`org.redbase.thrift2`),
//! on the Apache `libthrift` runtime from Maven Central.

use std::path::{Path, PathBuf};

use handlebars::Handlebars;
use heck::{ToLowerCamelCase, ToShoutySnakeCase, ToUpperCamelCase};

use super::{Language, Naming, Planned, SdkContext};

pub struct Java;

const TEMPLATES: &[(&str, &str)] = &[
    ("pom", include_str!("../../templates/java/pom.xml.hbs")),
    ("table", include_str!("../../templates/java/Table.java.hbs")),
    ("readme", include_str!("../../templates/java/README.md.hbs")),
];

/// The runtime package: templates without holes, the same in every Java SDK.
macro_rules! runtime {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../templates/java/runtime/", $name, ".java")))),*]
    };
}
const RUNTIME: &[(&str, &str)] = runtime!(
    "Batches",
    "BatchException",
    "BufferedWriter",
    "Cell",
    "Codec",
    "Codecs",
    "Column",
    "ColumnName",
    "Connection",
    "CounterDelta",
    "FamilyDef",
    "Filter",
    "FilterException",
    "GetOptions",
    "KeyEncodingException",
    "KeyFields",
    "KeyRange",
    "KeySpec",
    "PatternColumn",
    "ReadSelection",
    "RowOrder",
    "RowScanner",
    "ScanOptions",
    "SchemaDrift",
    "SchemaDriftException",
    "TableAdmin",
    "TableClient",
    "TableDef",
    "ThriftException",
    "ValueEncodingException",
    "Version",
    "WriteOptions",
);

/// The Thrift compiler's output (codegen/thrift/generate.sh).
macro_rules! thrift {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../thrift/java/org/redbase/thrift2/", $name, ".java")))),*]
    };
}
const THRIFT: &[(&str, &str)] = thrift!(
    "TAccessControlEntity",
    "TAppend",
    "TAuthorization",
    "TBloomFilterType",
    "TCellVisibility",
    "TColumn",
    "TColumnFamilyDescriptor",
    "TColumnIncrement",
    "TColumnValue",
    "TCompareOperator",
    "TCompressionAlgorithm",
    "TConsistency",
    "TDataBlockEncoding",
    "TDelete",
    "TDeleteType",
    "TDurability",
    "TFilterByOperator",
    "TGet",
    "THBaseService",
    "THRegionInfo",
    "THRegionLocation",
    "TIOError",
    "TIllegalArgument",
    "TIncrement",
    "TKeepDeletedCells",
    "TLogQueryFilter",
    "TLogType",
    "TMutation",
    "TNamespaceDescriptor",
    "TOnlineLogRecord",
    "TPermissionScope",
    "TPut",
    "TReadType",
    "TResult",
    "TRowMutations",
    "TScan",
    "TServerName",
    "TTableDescriptor",
    "TTableName",
    "TThriftServerType",
    "TTimeRange",
);

impl Language for Java {
    fn name(&self) -> &'static str {
        "java"
    }

    fn naming(&self) -> &'static dyn Naming {
        &JavaNaming
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        TEMPLATES
    }

    fn plan<'a>(&self, sdk: &'a SdkContext<'a>) -> Vec<Planned<'a>> {
        let src = PathBuf::from("src/main/java");
        let mut out = vec![
            Planned::sdk("pom.xml", "pom", sdk),
            Planned::sdk("README.md", "readme", sdk),
            Planned::verbatim(".gitignore", "/target/\n"),
        ];
        for (name, text) in RUNTIME {
            out.push(Planned::verbatim(
                src.join(format!("org/redbase/sdk/{name}.java")),
                text,
            ));
        }
        for (name, text) in THRIFT {
            out.push(Planned::verbatim(
                src.join(format!("org/redbase/thrift2/{name}.java")),
                text,
            ));
        }
        let package = src.join(sdk.package);
        out.extend(Planned::per_table(sdk, "table", move |id| {
            package.join(format!("{}.java", JavaNaming.type_name(id)))
        }));
        out
    }

    /// `{{boxed_type type}}`: Java has no optional primitives, so nullable row fields and
    /// generic arguments take the boxed types. `{{#unless (hashed index @root.table.key)}}`:
    /// a hashed component takes no range, so it gets no `...Between` method.
    fn register_helpers(&self, hb: &mut Handlebars<'_>) {
        hb.register_helper("boxed_type", Box::new(super::string_helper(boxed)));
        hb.register_helper("hashed", Box::new(hashed));
        hb.register_helper("type_note", Box::new(super::string_helper(type_note)));
    }

    fn header(&self, path: &Path) -> Option<String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("xml" | "md") => Some(format!("<!-- {} -->", super::HEADER)),
            Some("java") => Some(format!("// {}", super::HEADER)),
            _ => Some(format!("# {}", super::HEADER)),
        }
    }
}

handlebars::handlebars_helper!(hashed: |index: u64, key: Json| key["hash"]["indices"]
    .as_array()
    .is_some_and(|ix| ix.iter().any(|i| i.as_u64() == Some(index))));

/// Why a table's class name has a trailing `_`, for its Javadoc (empty when it has none).
fn type_note(id: &str) -> String {
    let plain = id.to_upper_camel_case();
    if JavaNaming.type_name(id) == plain {
        return String::new();
    }
    format!(
        "The class is {plain}_, not {plain}: {plain} is a Java keyword or a type Java programs \
         use everywhere (java.lang, java.io, java.util, java.nio.file), and the two would collide."
    )
}

/// The boxed Java type of a scalar: cells may be absent, so row fields are nullable.
fn boxed(scalar: &str) -> String {
    match scalar {
        "string" => "String",
        "bytes" => "byte[]",
        "i32" => "Integer",
        "i64" | "timestamp-ms" | "counter" => "Long",
        "f32" => "Float",
        "f64" => "Double",
        "bool" => "Boolean",
        _ => "JsonNode",
    }
    .to_string()
}

pub struct JavaNaming;

const KEYWORDS: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
    "var",
    "yield",
    "record",
    "sealed",
    "permits",
    "_",
];

/// Type names the generated code uses unqualified (a table named after one would shadow it),
/// then the JDK's everyday types: a table class named `File` in the SDK's package compiles, but
/// collides with `java.io.File` in every user file importing both. Such a table's class takes a
/// trailing `_` (`File_`), as keywords do, and its Javadoc says why.
const RESERVED_TYPES: &[&str] = &[
    "String",
    "Object",
    "Integer",
    "Long",
    "Float",
    "Double",
    "Boolean",
    "Override",
    "List",
    "Map",
    "Optional",
    "Arrays",
    "Objects",
    "JsonNode",
    "Connection",
    "KeyRange",
    "Column",
    "PatternColumn",
    "Codecs",
    "Cell",
    "KeySpec",
    "TableClient",
    "TableDef",
    "FamilyDef",
    "RowScanner",
    "ScanOptions",
    "TableAdmin",
    "BufferedWriter",
    "ColumnName",
    "CounterDelta",
    "Filter",
    "GetOptions",
    "Version",
    "WriteOptions",
    "Collection",
    "LinkedHashMap",
    "TreeMap",
    "ArrayList",
    "Byte",
    "Character",
    "Class",
    "Collections",
    "Collectors",
    "Date",
    "Duration",
    "Enum",
    "Error",
    "Exception",
    "File",
    "Files",
    "HashMap",
    "HashSet",
    "Instant",
    "Iterable",
    "Iterator",
    "LinkedList",
    "Math",
    "Number",
    "Path",
    "Paths",
    "Process",
    "Random",
    "Record",
    "Runnable",
    "Runtime",
    "Scanner",
    "Set",
    "Short",
    "Stream",
    "System",
    "Thread",
    "URI",
    "URL",
    "UUID",
    "Void",
];

fn escape(name: String) -> String {
    if KEYWORDS.contains(&name.as_str()) || RESERVED_TYPES.contains(&name.as_str()) {
        name + "_"
    } else {
        name
    }
}

impl Naming for JavaNaming {
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
                c => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        s.push_str(&format!("\\u{u:04x}"));
                    }
                }
            }
        }
        s.push('"');
        s
    }
    fn bytes_literal(&self, bytes: &[u8]) -> String {
        let items: Vec<String> = bytes
            .iter()
            .map(|&b| {
                if b < 0x80 {
                    format!("0x{b:02x}")
                } else {
                    format!("(byte) 0x{b:02x}")
                }
            })
            .collect();
        format!("new byte[] {{{}}}", items.join(", "))
    }
    fn value_type(&self, scalar: &str) -> String {
        match scalar {
            "string" => "String",
            "bytes" => "byte[]",
            "i32" => "int",
            "i64" | "timestamp-ms" | "counter" => "long",
            "f32" => "float",
            "f64" => "double",
            "bool" => "boolean",
            _ => "JsonNode",
        }
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_java_idioms() {
        let n = JavaNaming;
        assert_eq!(n.type_name("access_logs"), "AccessLogs");
        assert_eq!(n.field_name("user_id"), "userId");
        assert_eq!(n.func_name("fb_usage"), "fbUsage");
        assert_eq!(n.field_name("class"), "class_");
        assert_eq!(n.const_name("last_seen"), "LAST_SEEN");
        assert_eq!(n.type_name("string"), "String_");
        assert_eq!(n.type_name("file"), "File_");
        assert_eq!(n.type_name("path"), "Path_");
        assert_eq!(n.type_name("drive_file"), "DriveFile");
        assert_eq!(
            n.string_literal("a\"\\日😀"),
            "\"a\\\"\\\\\\u65e5\\ud83d\\ude00\""
        );
        assert_eq!(
            n.bytes_literal(&[0x74, 0xff]),
            "new byte[] {0x74, (byte) 0xff}"
        );
    }
}
