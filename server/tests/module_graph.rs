//! The engine's modules depend on each other one way. The engine is a set of rooms (the
//! folders of `server/src/engine`, each a concern with its own module doc), and these tests
//! read the sources and check:
//!
//! - no module (file) is in a cycle: each file's references to other engine modules
//!   (`super::x`, `crate::engine::room::x`, `use super::{x, y::Z}`) are collected and any
//!   cycle is printed;
//! - no room is in a cycle, and each room uses only the rooms [`ROOMS`] allows it: the layers
//!   from `model` at the bottom to the operations (`admin`, `data`, `backups`) at the top;
//! - only the operations name the engine's root (`Engine` and its state): the rooms below are
//!   mechanisms that know nothing of the handle.
//!
//! The root (`server/src/engine/*.rs`: `Engine`, its state, opening and closing it) ties the
//! rooms together; references to it (`crate::engine::Engine`) are not edges between modules.
//!
//! It also checks the layers above: the engine names no gateway, and the shared `gateway`
//! module names neither `thrift1` nor `thrift2`.
//!
//! Run it alone with `cargo test -p redbase --test module_graph`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each room of the engine and the rooms it may use, from the ground up. A room not listed
/// here fails [`each_room_uses_only_the_rooms_below_it`]: a new folder says where it stands.
const ROOMS: &[(&str, &[&str])] = &[
    // The vocabulary: cells, keys, descriptors, region identity, errors.
    ("model", &[]),
    // What a read asks for and the visibility rules: pure rules over entries, which know
    // nothing of where the entries are stored or how they are written.
    ("reads", &["model"]),
    // A region's files (redb file, redo log, write buffer, read snapshot): below both the
    // write path and the region, so it knows neither.
    ("store", &["model", "reads"]),
    // The write path: group commit and applying mutations, over the store.
    ("writes", &["model", "reads", "store"]),
    // A region's lifecycle and row reads, and its rewrites (split, major compaction).
    ("regions", &["model", "reads", "store", "writes"]),
    // The catalog file and the access control lists: no region, write or read internals.
    ("meta", &["model", "store"]),
    // The operations, `impl Engine` blocks; nothing in the engine but its root uses them.
    (
        "admin",
        &["model", "reads", "store", "writes", "regions", "meta"],
    ),
    ("data", &["model", "reads", "store", "writes", "regions"]),
    ("backups", &["model", "regions"]),
];

/// The rooms whose modules may name the engine's root (`Engine`, `Inner`, `State`, ...).
const OPERATIONS: &[&str] = &["admin", "data", "backups"];

/// One engine source file: its room (`""` for the root), its module name and its text without
/// comments.
struct Source {
    room: String,
    module: String,
    text: String,
}

/// Every `.rs` file below `server/src/engine` but the `mod.rs` files (the root's, and each
/// room's, which only declares its modules).
fn engine_sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine");
    let mut out = Vec::new();
    let mut todo = vec![root.clone()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).expect("read an engine folder") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                todo.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let module = path
                .file_stem()
                .and_then(|s| s.to_str())
                .expect("file name")
                .to_string();
            if module == "mod" {
                continue;
            }
            let rel = path.strip_prefix(&root).expect("below the engine");
            let room = match rel.components().count() {
                1 => String::new(),
                2 => rel
                    .components()
                    .next()
                    .and_then(|c| c.as_os_str().to_str())
                    .expect("room name")
                    .to_string(),
                _ => panic!("{}: rooms hold files, not folders", rel.display()),
            };
            let text = std::fs::read_to_string(&path).expect("read engine source");
            out.push(Source {
                room,
                module,
                text: strip_comments(&text),
            });
        }
    }
    out.sort_by(|a, b| (&a.room, &a.module).cmp(&(&b.room, &b.module)));
    out
}

/// The room of every module; module names are unique across the engine (the root re-exports
/// many by their bare name).
fn rooms_of(sources: &[Source]) -> BTreeMap<String, String> {
    let mut rooms = BTreeMap::new();
    for s in sources {
        if let Some(other) = rooms.insert(s.module.clone(), s.room.clone()) {
            panic!(
                "two engine modules named {} (in {other:?} and {:?})",
                s.module, s.room
            );
        }
    }
    rooms
}

/// The engine modules a source names, and whether it names the engine's root (an item of
/// `crate::engine` that is neither a room nor a module, such as `Engine`).
fn uses(text: &str, rooms: &BTreeMap<String, String>) -> (BTreeSet<String>, bool) {
    let room_names: BTreeSet<&str> = rooms.values().map(String::as_str).collect();
    let mut prefixes = vec![
        "super::".to_string(),
        "super::super::".to_string(),
        "crate::engine::".to_string(),
    ];
    for r in room_names.iter().filter(|r| !r.is_empty()) {
        prefixes.push(format!("crate::engine::{r}::"));
        prefixes.push(format!("super::super::{r}::"));
    }
    let mut modules = BTreeSet::new();
    let mut root = false;
    for prefix in &prefixes {
        for name in references(text, prefix) {
            if rooms.contains_key(&name) {
                modules.insert(name);
            } else if prefix == "crate::engine::"
                && !room_names.contains(name.as_str())
                && !name.is_empty()
            {
                root = true;
            }
        }
    }
    (modules, root)
}

/// The engine's modules and, for each, the modules it names.
fn engine_graph() -> BTreeMap<String, BTreeSet<String>> {
    let sources = engine_sources();
    let rooms = rooms_of(&sources);
    sources
        .iter()
        .map(|s| {
            let (mut deps, _) = uses(&s.text, &rooms);
            deps.remove(&s.module);
            (s.module.clone(), deps)
        })
        .collect()
}

/// The rooms and, for each, the rooms its modules name (each with the module edges that
/// make it), the root left out.
fn room_graph() -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let sources = engine_sources();
    let rooms = rooms_of(&sources);
    let mut graph: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for s in sources.iter().filter(|s| !s.room.is_empty()) {
        let entry = graph.entry(s.room.clone()).or_default();
        for m in uses(&s.text, &rooms).0 {
            let to = &rooms[&m];
            if !to.is_empty() && *to != s.room {
                entry
                    .entry(to.clone())
                    .or_default()
                    .push(format!("{}/{} -> {to}/{m}", s.room, s.module));
            }
        }
    }
    graph
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

#[test]
fn room_paths_are_resolved() {
    let rooms = BTreeMap::from([
        ("a".to_string(), "low".to_string()),
        ("b".to_string(), "low".to_string()),
        ("c".to_string(), "high".to_string()),
        ("d".to_string(), String::new()),
    ]);
    let text = "use crate::engine::low::a::X;\nuse crate::engine::low::{b, a::Y};\n\
                use super::c;\nuse crate::engine::d;\n";
    let (found, root) = uses(text, &rooms);
    assert_eq!(
        found,
        BTreeSet::from(["a", "b", "c", "d"].map(String::from))
    );
    assert!(!root, "modules and rooms are not the root");
    let (_, root) = uses("use crate::engine::{Engine, Inner};\n", &rooms);
    assert!(root, "Engine is the root's");
    let (_, root) = uses("let e: crate::engine::Engine;\n", &rooms);
    assert!(root, "Engine is the root's");
}

/// The rooms form no cycle (a room that uses another that uses it back is one concern split
/// in two, or two concerns knotted together).
#[test]
fn engine_rooms_have_no_cycles() {
    let graph = room_graph();
    assert!(
        graph.len() >= ROOMS.len(),
        "expected the engine's rooms in server/src/engine, found {graph:?}"
    );
    let plain: BTreeMap<String, BTreeSet<String>> = graph
        .iter()
        .map(|(r, deps)| (r.clone(), deps.keys().cloned().collect()))
        .collect();
    let found = cycles(&plain);
    assert!(
        found.is_empty(),
        "room cycles in server/src/engine: {found:?}\nedges: {graph:#?}"
    );
}

/// Each room uses only the rooms [`ROOMS`] lists for it: the read rules no storage or write
/// path, the store no write path or region, the catalog no region internals, and the
/// operations (`admin`, `data`, `backups`) nothing in the engine but its root.
#[test]
fn each_room_uses_only_the_rooms_below_it() {
    let allowed: BTreeMap<&str, &[&str]> = ROOMS.iter().copied().collect();
    let graph = room_graph();
    let mut wrong = Vec::new();
    for (room, deps) in &graph {
        let Some(may) = allowed.get(room.as_str()) else {
            wrong.push(format!(
                "server/src/engine/{room}/ is not in ROOMS (tests/module_graph.rs): say which \
                 rooms it may use"
            ));
            continue;
        };
        for (to, edges) in deps {
            if !may.contains(&to.as_str()) {
                wrong.push(format!(
                    "{room} may not use {to} (it may use: {}):\n    {}",
                    may.join(", "),
                    edges.join("\n    ")
                ));
            }
        }
    }
    for (room, _) in ROOMS {
        if !graph.contains_key(*room) {
            wrong.push(format!(
                "ROOMS names {room}, which has no module in server/src/engine"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "engine rooms used the wrong way:\n{}",
        wrong.join("\n")
    );
}

/// Only the operations name the engine's root (`Engine`, `Inner`, `State`, `MAX_ROW_LEN`,
/// ...): the rooms below are mechanisms the handle is built from, and know nothing of it.
#[test]
fn only_the_operations_name_the_engine_root() {
    let sources = engine_sources();
    let rooms = rooms_of(&sources);
    let wrong: Vec<String> = sources
        .iter()
        .filter(|s| !s.room.is_empty() && !OPERATIONS.contains(&s.room.as_str()))
        .filter(|s| uses(&s.text, &rooms).1)
        .map(|s| format!("{}/{}.rs names crate::engine's own items", s.room, s.module))
        .collect();
    assert!(
        wrong.is_empty(),
        "only {} may name the engine root:\n{}",
        OPERATIONS.join(", "),
        wrong.join("\n")
    );
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
