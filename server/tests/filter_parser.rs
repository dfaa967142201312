//! The filter language's parser: every construct (names, arguments, quoting, operators and
//! their precedence, whitespace and case) and every kind of error, each naming its position.

use redbase::filter::{self, FilterError};

fn canon(s: &str) -> String {
    filter::syntax(s.as_bytes())
        .unwrap_or_else(|e| panic!("{s:?} should parse: {e}"))
        .to_string()
}

fn err(s: &str) -> FilterError {
    match filter::parse(s) {
        Ok(_) => panic!("{s:?} should be refused"),
        Err(e) => e,
    }
}

/// Asserts the error's position and that its message names the position and `needle`.
fn refused(s: &str, at: usize, needle: &str) -> FilterError {
    let e = err(s);
    let msg = e.to_string();
    assert_eq!(e.position(), at, "{s:?}: {msg}");
    assert!(msg.contains(&format!("at position {at}")), "{msg}");
    assert!(msg.contains(needle), "{s:?}: {msg:?} lacks {needle:?}");
    e
}

// ---------------------------------------------------------------------------------------------
// Parser: constructs
// ---------------------------------------------------------------------------------------------

#[test]
fn parses_a_simple_filter_with_each_argument_kind() {
    assert_eq!(canon("FirstKeyOnlyFilter()"), "FirstKeyOnlyFilter()");
    assert_eq!(canon("PrefixFilter('row')"), "PrefixFilter('row')");
    assert_eq!(canon("PageFilter(10)"), "PageFilter(10)");
    assert_eq!(canon("KeyOnlyFilter(true)"), "KeyOnlyFilter(true)");
    assert_eq!(
        canon("ColumnPaginationFilter(-1,2)"),
        "ColumnPaginationFilter(-1, 2)"
    );
    for op in ["<", "<=", ">", ">=", "=", "!="] {
        assert_eq!(
            canon(&format!("RowFilter({op},'binary:r')")),
            format!("RowFilter({op}, 'binary:r')")
        );
    }
}

#[test]
fn quoted_strings_escape_quotes_by_doubling() {
    let e = filter::syntax(b"PrefixFilter('it''s')").unwrap();
    let filter::Expr::Call(c) = &e else {
        panic!("a call")
    };
    assert_eq!(
        c.args[0].value,
        filter::ast::ArgValue::Quoted(b"it's".to_vec())
    );
    assert_eq!(e.to_string(), "PrefixFilter('it''s')");
    assert_eq!(canon("PrefixFilter('')"), "PrefixFilter('')");
    assert_eq!(canon("PrefixFilter('''')"), "PrefixFilter('''')");
    // Parentheses, commas and operators inside quotes are plain text.
    assert_eq!(
        canon("PrefixFilter('a) AND (b, c')"),
        "PrefixFilter('a) AND (b, c')"
    );
}

#[test]
fn precedence_is_skip_while_then_and_then_or() {
    assert_eq!(
        canon("KeyOnlyFilter() OR FirstKeyOnlyFilter() AND PageFilter(1)"),
        "KeyOnlyFilter() OR (FirstKeyOnlyFilter() AND PageFilter(1))"
    );
    assert_eq!(
        canon("KeyOnlyFilter() AND FirstKeyOnlyFilter() OR PageFilter(1)"),
        "(KeyOnlyFilter() AND FirstKeyOnlyFilter()) OR PageFilter(1)"
    );
    assert_eq!(
        canon("SKIP KeyOnlyFilter() AND WHILE PageFilter(1)"),
        "SKIP KeyOnlyFilter() AND WHILE PageFilter(1)"
    );
    let e = filter::syntax(b"SKIP KeyOnlyFilter() AND PageFilter(1)").unwrap();
    assert!(matches!(&e, filter::Expr::And(v) if matches!(v[0], filter::Expr::Skip(_))));
    assert_eq!(
        canon("WHILE SKIP PageFilter(1)"),
        "WHILE SKIP PageFilter(1)"
    );
    // Chains flatten; parentheses group.
    let e = filter::syntax(b"PageFilter(1) AND PageFilter(2) AND PageFilter(3)").unwrap();
    assert!(matches!(&e, filter::Expr::And(v) if v.len() == 3));
    assert_eq!(
        canon("SKIP (PageFilter(1) OR PageFilter(2))"),
        "SKIP (PageFilter(1) OR PageFilter(2))"
    );
    assert_eq!(
        canon("((PageFilter(1)))"),
        "PageFilter(1)",
        "redundant parentheses vanish"
    );
}

#[test]
fn whitespace_and_case_rules_follow_hbase() {
    // Spaces and tabs between filters and operators; operators touching parentheses.
    assert_eq!(
        canon("\t PageFilter(1)\tAND\t PageFilter(2) "),
        "PageFilter(1) AND PageFilter(2)"
    );
    assert_eq!(
        canon("(PageFilter(1))AND(PageFilter(2))OR SKIP(PageFilter(3))"),
        "(PageFilter(1) AND PageFilter(2)) OR SKIP PageFilter(3)"
    );
    // Spaces around arguments and before the argument list.
    assert_eq!(
        canon("ColumnRangeFilter ( 'a' , TRUE , 'c' , False )"),
        "ColumnRangeFilter('a', TRUE, 'c', False)"
    );
    // Booleans are case-insensitive; names and operators are not.
    assert!(filter::parse("KeyOnlyFilter(TrUe)").is_ok());
    refused("keyonlyfilter()", 0, "unknown filter");
    refused("PageFilter(1) and PageFilter(2)", 14, "expected AND, OR");
}

// ---------------------------------------------------------------------------------------------
// Parser: errors
// ---------------------------------------------------------------------------------------------

#[test]
fn empty_strings_are_refused() {
    assert_eq!(err(""), FilterError::Empty);
    assert_eq!(err(" \t "), FilterError::Empty);
    refused("", 0, "empty");
}

#[test]
fn unknown_filters_are_refused_by_name() {
    let e = refused("PageFilter(1) AND FooFilter('x')", 18, "\"FooFilter\"");
    assert!(
        e.to_string().contains("PrefixFilter"),
        "lists the known: {e}"
    );
    refused("SkipFilter(PageFilter(1))", 0, "unknown filter");
}

#[test]
fn wrong_argument_counts_are_refused() {
    refused("PrefixFilter()", 0, "takes 1 argument(s), got 0");
    refused("PrefixFilter('a', 'b')", 0, "got 2");
    refused("FirstKeyOnlyFilter(1)", 0, "takes no argument(s)");
    refused("KeyOnlyFilter(true, false)", 0, "0 or 1");
    refused(
        "SingleColumnValueFilter('f', 'q', =, 'binary:v', true)",
        0,
        "4 or 6",
    );
    refused("DependentColumnFilter('f')", 0, "2, 3 or 5");
    refused("MultipleColumnPrefixFilter()", 0, "1 or more");
    refused("ColumnRangeFilter('a', true, 'b')", 0, "4");
    refused("  RowFilter(=)", 2, "takes 2");
}

#[test]
fn wrong_argument_types_are_refused() {
    refused("PrefixFilter(abc)", 13, "must be a quoted string");
    refused("PageFilter('1')", 11, "must be an unquoted integer");
    refused("PageFilter(1x)", 11, "not a valid 64-bit integer");
    refused("PageFilter(-)", 11, "not a valid");
    refused("ColumnCountGetFilter(2147483648)", 21, "out of range");
    assert!(filter::parse("ColumnPaginationFilter(2147483647, 0)").is_ok());
    refused("PageFilter(99999999999999999999)", 11, "out of range");
    refused("PageFilter(-1)", 11, "must not be negative");
    refused("TimestampsFilter(5, -2)", 20, "must not be negative");
    refused("KeyOnlyFilter(yes)", 14, "true or false");
    refused("KeyOnlyFilter('true')", 14, "true or false");
    refused("RowFilter(==, 'binary:a')", 10, "compare operator");
    refused("RowFilter('=', 'binary:a')", 10, "compare operator");
    refused("RowFilter(=, binary:a)", 13, "quoted comparator");
    refused("RowFilter(=, 'binary')", 13, "no ':'");
    refused("RowFilter(=, 'BINARY:a')", 13, "unknown comparator type");
    refused("ValueFilter(<, 'regexstring:a')", 12, "= and !=");
    refused("QualifierFilter(>=, 'substring:a')", 16, "= and !=");
    refused(
        "SingleColumnValueFilter('f', 'q', <, 'regexstringnocase:a')",
        34,
        "= and !=",
    );
    // DependentColumnFilter does not restrict its operator, as in HBase.
    assert!(filter::parse("DependentColumnFilter('f', 'q', true, <, 'substring:a')").is_ok());
}

#[test]
fn unbalanced_parentheses_and_quotes_are_refused() {
    refused("(PageFilter(1)", 0, "never closed");
    refused("PageFilter(1))", 13, "closes no");
    refused("PageFilter(1", 10, "never closed");
    refused("(PageFilter(1) AND (PageFilter(2))", 0, "never closed");
    refused("PrefixFilter('a)", 13, "quote is never closed");
    refused("PrefixFilter('it's')", 17, "expected ',' or ')'");
    refused("()", 1, "expected a filter");
    refused(")", 0, "expected a filter");
}

#[test]
fn misplaced_operators_and_junk_are_refused() {
    refused("PageFilter(1) PageFilter(2)", 14, "expected AND, OR");
    refused("PageFilter(1) AND", 14, "AND needs a filter after it");
    refused("OR PageFilter(1)", 0, "OR needs a filter before it");
    refused("SKIP", 0, "SKIP needs a filter after it");
    refused("(WHILE)", 1, "WHILE needs a filter after it");
    refused(
        "PageFilter(1) AND AND PageFilter(2)",
        18,
        "AND needs a filter before it",
    );
    refused("PageFilter", 10, "ends here");
    refused("PageFilter x(1)", 11, "expected '('");
    refused("PageFilter(1 2)", 13, "',' or ')' after an argument");
    refused("PageFilter(1,)", 13, "an argument after ','");
    refused("PageFilter(,1)", 11, "an argument or ')'");
    refused("PageFilter(\t1)", 11, "a tab");
    refused("'x'", 0, "expected a filter");
    refused("PageFilter(1)\nAND PageFilter(2)", 13, "byte 0x0a");
}

#[test]
fn nesting_is_bounded() {
    let deep = format!("{}PageFilter(1){}", "(".repeat(200), ")".repeat(200));
    refused(&deep, 64, "nest deeper than 64");
    let skips = format!("{}PageFilter(1)", "SKIP ".repeat(200));
    assert!(matches!(err(&skips), FilterError::TooDeep { .. }));
    let ok = format!("{}PageFilter(1){}", "(".repeat(60), ")".repeat(60));
    assert!(filter::parse(&ok).is_ok());
}

#[test]
fn bad_and_pathological_regexes_are_refused_at_parse_time() {
    refused(
        "RowFilter(=, 'regexstring:(ab')",
        13,
        "bad regular expression",
    );
    refused(
        "RowFilter(=, 'regexstring:a)')",
        13,
        "bad regular expression",
    );
    // Backreferences and lookaround do not exist in the regex crate: refused, not ignored.
    refused(
        "RowFilter(=, 'regexstring:(a)\\1')",
        13,
        "bad regular expression",
    );
    refused(
        "RowFilter(=, 'regexstring:a(?=b)')",
        13,
        "bad regular expression",
    );
    // A pattern that would compile to a huge program.
    refused(
        "ValueFilter(=, 'regexstring:(((a{100}){100}){100})')",
        15,
        "bad regular expression",
    );
}

#[test]
fn error_messages_name_position_and_problem() {
    let msg = err("PageFilter(1) AND PrefixFilter(12)").to_string();
    assert_eq!(
        msg,
        "at position 31: argument 1 of PrefixFilter must be a quoted string, got \"12\""
    );
}

#[test]
fn java_only_regex_constructs_are_refused_with_the_reason() {
    for (p, why) in [
        ("(a)\\1", "backreferences are not supported"),
        ("a(?=b)", "look-around"),
        ("(?>a)", "unrecognized flag"),
        ("a*+b", "possessive quantifiers"),
        ("a++", "possessive quantifiers"),
        ("\\Z", "unrecognized escape"),
    ] {
        let f = format!("ValueFilter(=, 'regexstring:{p}')");
        let e = refused(&f, 15, why);
        assert!(
            e.to_string().contains(&format!("{p:?}")),
            "names the pattern: {e}"
        );
    }
    // Java constructs the crate shares are accepted.
    for p in [
        "\\p{Alpha}+",
        "[a-z&&[^aeiou]]",
        "(?i)x",
        "a{2,3}?",
        "\\Qa.b\\E",
        "\\A\\d+\\z",
    ] {
        assert!(
            filter::parse(&format!("ValueFilter(=, 'regexstring:{p}')")).is_ok(),
            "{p}"
        );
    }
}
