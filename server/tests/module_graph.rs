//! The engine's modules depend on each other one way: no `use super::x` cycles among the files
//! of `server/src/engine`. This test reads those files, collects the sibling modules each one
//! names (`super::x`, `use super::{x, y::Z}`, `crate::engine::x`), and fails on any cycle,
//! printing it.
//!
//! `mod.rs` is the root that ties the modules together (`Engine` and its impl blocks spread
//! over the files); references to it (`super::Engine`) are not edges between modules.
//!
//! It also checks the layers above: the engine names no gateway, and the shared `gateway`
//! module names neither `thrift1` nor `thrift2`.
//!
//! Run it alone with `cargo test -p redbase --test module_graph`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The engine's modules (file stems, without `mod`) and, for each, the modules it names.
fn engine_graph() -> BTreeMap<String, BTreeSet<String>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut sources = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("read server/src/engine") {
        let path = entry.expect("directory entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("file name")
            .to_string();
        if stem == "mod" {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read engine source");
        sources.insert(stem, strip_comments(&text));
    }
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    sources
        .iter()
        .map(|(name, text)| {
            let mut deps = BTreeSet::new();
            for prefix in ["super::", "crate::engine::"] {
                for referenced in references(text, prefix) {
                    if referenced != *name && modules.contains(&referenced) {
                        deps.insert(referenced);
                    }
                }
            }
            (name.clone(), deps)
        })
        .collect()
}

/// The text without `//` comments (doc comments and links name modules without using them).
fn strip_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            // Not inside a string literal such as "http://": good enough for this code.
            Some(i) if line[..i].matches('"').count() % 2 == 0 => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segment after each occurrence of `prefix`; for a group
/// (`super::{a, b::C}`) the first segment of each item.
fn references(text: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices(prefix) {
        let before = text[..i].chars().next_back();
        let rest = &text[i + prefix.len()..];
        // `super::super::x` leaves the engine; `foo_super::` is another name.
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut end = group.len();
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = j;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let mut depth = 0;
            let mut item_start = true;
            for (j, c) in group[..end].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && !c.is_whitespace() => {
                        item_start = false;
                        out.push(ident(&group[j..]));
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out
}

fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Every cycle's modules (strongly connected components of more than one module), each with
/// one cycle through them spelled out.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<(Vec<String>, BTreeSet<String>)> {
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    for start in graph.keys() {
        if seen.contains(start) {
            continue;
        }
        // The component of `start`: what it reaches that also reaches it.
        let forward = reachable(graph, start);
        let component: BTreeSet<String> = forward
            .iter()
            .filter(|m| reachable(graph, m).contains(start))
            .cloned()
            .collect();
        seen.extend(component.iter().cloned());
        if component.len() > 1 {
            found.push((cycle_through(graph, start, &component), component));
        }
    }
    found
}

fn reachable(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(m) = todo.pop() {
        for d in graph.get(&m).into_iter().flatten() {
            if out.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    out
}

/// A shortest path from `start` back to itself inside `component` (breadth first).
fn cycle_through(
    graph: &BTreeMap<String, BTreeSet<String>>,
    start: &str,
    component: &BTreeSet<String>,
) -> Vec<String> {
    let mut parent: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.to_string()]);
    while let Some(m) = queue.pop_front() {
        for d in graph.get(&m).into_iter().flatten() {
            if !component.contains(d) {
                continue;
            }
            if d == start {
                let mut cycle = vec![m.clone()];
                let mut at = m.clone();
                while at != start {
                    at = parent[&at].clone();
                    cycle.push(at.clone());
                }
                cycle.reverse();
                cycle.push(start.to_string());
                return cycle;
            }
            if !parent.contains_key(d) && d != start {
                parent.insert(d.clone(), m.clone());
                queue.push_back(d.clone());
            }
        }
    }
    vec![start.to_string()]
}

#[test]
fn engine_modules_have_no_cycles() {
    let graph = engine_graph();
    assert!(
        graph.len() > 10,
        "expected the engine's modules in server/src/engine, found {graph:?}"
    );
    let cycles = cycles(&graph);
    if !cycles.is_empty() {
        let mut msg = String::from("module cycles in server/src/engine:\n");
        for (c, component) in &cycles {
            let all: Vec<&str> = component.iter().map(String::as_str).collect();
            msg.push_str(&format!(
                "  {}   (modules in this knot: {})\n",
                c.join(" -> "),
                all.join(", ")
            ));
        }
        msg.push_str("edges:\n");
        for (m, deps) in &graph {
            let deps: Vec<&str> = deps.iter().map(String::as_str).collect();
            msg.push_str(&format!("  {m} -> {}\n", deps.join(", ")));
        }
        panic!("{msg}");
    }
}

#[test]
fn references_are_found() {
    let text = "use super::a::X;\nuse super::{b, c::{D, E}};\nlet x = super::d::f();\n\
                use crate::engine::e;\nuse super::super::z;\n";
    let mut found = Vec::new();
    found.extend(references(text, "super::"));
    found.extend(references(text, "crate::engine::"));
    for m in ["a", "b", "c", "d", "e"] {
        assert!(found.iter().any(|f| f == m), "{m} not in {found:?}");
    }
    assert!(!found.iter().any(|f| f == "z"), "{found:?}");
    let graph = BTreeMap::from([
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
        ("d".to_string(), BTreeSet::from(["a".to_string()])),
    ]);
    let found = cycles(&graph);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, vec!["a", "b", "c", "a"]);
    assert_eq!(found[0].1.len(), 3);
}

/// The `.rs` files below `server/src/<dir>`, without comments, by path.
fn sources_under(dir: &str) -> Vec<(std::path::PathBuf, String)> {
    let mut out = Vec::new();
    let mut todo = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir)];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("read a source folder") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().and_then(|e| e.to_str()) == Some("rs") {
                let text = std::fs::read_to_string(&path).expect("read a source");
                out.push((path, strip_comments(&text)));
            }
        }
    }
    out
}

/// The layers depend one way: the gateways (`thrift1`, `thrift2`) on the shared `gateway`
/// module, and it on the engine. The engine names no gateway; `gateway` names neither gateway.
#[test]
fn gateway_layers_depend_one_way() {
    let rules = [
        (
            "engine",
            &[
                "crate::gateway",
                "crate::thrift1",
                "crate::thrift2",
                "crate::native",
            ][..],
        ),
        (
            "gateway",
            &["crate::thrift1", "crate::thrift2", "crate::native"][..],
        ),
    ];
    let mut wrong = Vec::new();
    for (dir, forbidden) in rules {
        let sources = sources_under(dir);
        assert!(!sources.is_empty(), "no sources in server/src/{dir}");
        for (path, text) in sources {
            for f in forbidden {
                if text.contains(f) {
                    wrong.push(format!("{} names {f}", path.display()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "layers depend the wrong way:\n{}",
        wrong.join("\n")
    );
}
