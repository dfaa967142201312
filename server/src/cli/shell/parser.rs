//! Commands from tokens: `name arg, arg, KEY => value ...` or `name(arg, ...)`, with values
//! that are strings, integers, `nil`, `true`/`false`, arrays, `=>` hashes and the HBase
//! shell's constants (which in HBase's shell are Ruby constants equal to their own names, so
//! `NAME` here is the string "NAME"). Trailing `key => value` pairs form one hash, as in Ruby.

use super::lexer::{tokenize, Pos, SyntaxError, Tok};

/// A literal value with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub pos: Pos,
    pub kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Str(Vec<u8>),
    Int(i64),
    Nil,
    Bool(bool),
    Array(Vec<Value>),
    Hash(Vec<(Value, Value)>),
}

/// One command as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    pub name: String,
    pub pos: Pos,
    pub args: Vec<Value>,
}

/// The HBase shell's constants this shell knows; any other capitalised word is an error (as
/// an undefined constant is in HBase's shell).
pub const CONSTANTS: &[&str] = &[
    "NAME",
    "VERSIONS",
    "MIN_VERSIONS",
    "TTL",
    "KEEP_DELETED_CELLS",
    "BLOCKSIZE",
    "IN_MEMORY",
    "COMPRESSION",
    "BLOOMFILTER",
    "BLOCKCACHE",
    "REPLICATION_SCOPE",
    "DATA_BLOCK_ENCODING",
    "SPLITS",
    "NUMREGIONS",
    "SPLITALGO",
    "METHOD",
    "COLUMN",
    "COLUMNS",
    "TIMESTAMP",
    "TIMERANGE",
    "FILTER",
    "STARTROW",
    "STOPROW",
    "ROWPREFIXFILTER",
    "LIMIT",
    "REVERSED",
    "RAW",
    "CACHE",
    "INTERVAL",
    "MAX_FILESIZE",
    "MEMSTORE_FLUSHSIZE",
    "DURABILITY",
    "READONLY",
    "CONFIGURATION",
    "METADATA",
    "OWNER",
    "REGION_REPLICATION",
    "COMPACTION_ENABLED",
    "NORMALIZATION_ENABLED",
    "CACHE_BLOCKS",
    "ATTRIBUTES",
    "CONSISTENCY",
    "MAXLENGTH",
    "BATCH",
    "FORMATTER",
    "FORMAT",
    "IS_ROOT",
    "IS_META",
    "ALL_METRICS",
    "METRICS",
    "TABLE_ATTRIBUTES",
];

/// Parses every command in `input`. An `incomplete` error means an open quote or bracket, or
/// a trailing comma or `=>`: more input may finish it.
pub fn parse(input: &str) -> Result<Vec<Command>, SyntaxError> {
    let toks = tokenize(input)?;
    let end = toks
        .last()
        .map(|(_, p)| *p)
        .unwrap_or(Pos { line: 1, col: 1 });
    let mut p = Parser {
        toks,
        i: 0,
        depth: 0,
        end,
    };
    let mut cmds = Vec::new();
    loop {
        p.skip_ends();
        if p.peek().is_none() {
            return Ok(cmds);
        }
        cmds.push(p.command()?);
    }
}

/// Moves every position down `lines` lines: a script's commands are parsed a few lines at a
/// time, and errors must name the line in the whole script.
pub fn shift_lines(cmds: &mut [Command], lines: usize) {
    fn value(v: &mut Value, lines: usize) {
        v.pos.line += lines;
        match &mut v.kind {
            Kind::Array(items) => items.iter_mut().for_each(|i| value(i, lines)),
            Kind::Hash(pairs) => pairs.iter_mut().for_each(|(k, v)| {
                value(k, lines);
                value(v, lines);
            }),
            _ => {}
        }
    }
    for c in cmds {
        c.pos.line += lines;
        c.args.iter_mut().for_each(|a| value(a, lines));
    }
}

struct Parser {
    toks: Vec<(Tok, Pos)>,
    i: usize,
    /// Open brackets: inside them a newline is only white space.
    depth: usize,
    end: Pos,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Str(_) => "a string".into(),
        Tok::Int(i) => format!("`{i}`"),
        Tok::Ident(w) | Tok::Const(w) => format!("`{w}`"),
        Tok::Comma => "`,`".into(),
        Tok::Arrow => "`=>`".into(),
        Tok::LBracket => "`[`".into(),
        Tok::RBracket => "`]`".into(),
        Tok::LBrace => "`{`".into(),
        Tok::RBrace => "`}`".into(),
        Tok::LParen => "`(`".into(),
        Tok::RParen => "`)`".into(),
        Tok::End => "the end of the line".into(),
    }
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|(t, _)| t)
    }
    fn next(&mut self) -> Option<(Tok, Pos)> {
        let t = self.toks.get(self.i).cloned();
        if t.is_some() {
            self.i += 1;
        }
        t
    }
    fn skip_ends(&mut self) {
        while self.peek() == Some(&Tok::End) {
            self.i += 1;
        }
    }
    /// Inside brackets, or after a comma or `=>`, a newline continues the command.
    fn skip_soft_ends(&mut self) {
        self.skip_ends();
    }
    fn eof(&self, what: &str) -> SyntaxError {
        SyntaxError {
            pos: self.end,
            message: format!("input ends inside {what}"),
            incomplete: true,
        }
    }

    fn command(&mut self) -> Result<Command, SyntaxError> {
        let (tok, pos) = self.next().ok_or_else(|| self.eof("a command"))?;
        let name = match tok {
            Tok::Ident(w) => w,
            other => {
                return Err(SyntaxError::at(
                    pos,
                    format!("expected a command name, found {}", describe(&other)),
                ))
            }
        };
        let mut args = Vec::new();
        if self.peek() == Some(&Tok::LParen) {
            self.i += 1;
            self.depth += 1;
            self.skip_soft_ends();
            if self.peek() != Some(&Tok::RParen) {
                args = self.arg_list(Some(Tok::RParen))?;
            }
            self.skip_soft_ends();
            match self.next() {
                Some((Tok::RParen, _)) => self.depth -= 1,
                Some((t, p)) => {
                    return Err(SyntaxError::at(
                        p,
                        format!("expected `)`, found {}", describe(&t)),
                    ))
                }
                None => return Err(self.eof("`(`")),
            }
        } else if !matches!(self.peek(), None | Some(Tok::End)) {
            args = self.arg_list(None)?;
        }
        match self.next() {
            None | Some((Tok::End, _)) => Ok(Command { name, pos, args }),
            Some((t, p)) => Err(SyntaxError::at(
                p,
                format!(
                    "expected `,` or the end of the command, found {}",
                    describe(&t)
                ),
            )),
        }
    }

    /// Arguments separated by commas; `k => v` pairs from the first one on form a hash.
    fn arg_list(&mut self, close: Option<Tok>) -> Result<Vec<Value>, SyntaxError> {
        let mut args = Vec::new();
        let mut hash: Option<(Pos, Vec<(Value, Value)>)> = None;
        loop {
            let v = self.value()?;
            if self.peek() == Some(&Tok::Arrow) {
                self.i += 1;
                self.skip_soft_ends();
                let val = self.value()?;
                let pos = v.pos;
                hash.get_or_insert_with(|| (pos, Vec::new()))
                    .1
                    .push((v, val));
            } else if let Some((p, _)) = &hash {
                return Err(SyntaxError::at(
                    v.pos,
                    format!("a plain argument after `key => value` pairs (which started at {p})"),
                ));
            } else {
                args.push(v);
            }
            if self.peek() == Some(&Tok::Comma) {
                self.i += 1;
                if self.depth > 0 || close.is_some() {
                    self.skip_soft_ends();
                } else if matches!(self.peek(), None | Some(Tok::End)) {
                    // A trailing comma continues the command on the next line, as in Ruby.
                    if self.peek().is_none() {
                        return Err(self.eof("an argument list (after `,`)"));
                    }
                    self.skip_soft_ends();
                }
                continue;
            }
            break;
        }
        if let Some((pos, pairs)) = hash {
            args.push(Value {
                pos,
                kind: Kind::Hash(pairs),
            });
        }
        Ok(args)
    }

    fn value(&mut self) -> Result<Value, SyntaxError> {
        let (tok, pos) = self.next().ok_or_else(|| self.eof("a value"))?;
        let kind = match tok {
            Tok::Str(s) => Kind::Str(s),
            Tok::Int(i) => Kind::Int(i),
            Tok::Ident(w) => match w.as_str() {
                "nil" => Kind::Nil,
                "true" => Kind::Bool(true),
                "false" => Kind::Bool(false),
                _ => {
                    return Err(SyntaxError::at(
                        pos,
                        format!(
                            "`{w}`: variables and method calls are not supported; quote strings"
                        ),
                    ))
                }
            },
            Tok::Const(c) => {
                if !CONSTANTS.contains(&c.as_str()) {
                    return Err(SyntaxError::at(pos, format!("unknown constant `{c}`")));
                }
                Kind::Str(c.into_bytes())
            }
            Tok::LBracket => {
                self.depth += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_soft_ends();
                    if self.peek() == Some(&Tok::RBracket) {
                        self.i += 1;
                        break;
                    }
                    items.push(self.value()?);
                    self.skip_soft_ends();
                    match self.next() {
                        Some((Tok::Comma, _)) => continue,
                        Some((Tok::RBracket, _)) => break,
                        Some((t, p)) => {
                            return Err(SyntaxError::at(
                                p,
                                format!(
                                    "expected `,` or `]` in the array opened at {pos}, found {}",
                                    describe(&t)
                                ),
                            ))
                        }
                        None => return Err(self.eof("an array")),
                    }
                }
                self.depth -= 1;
                Kind::Array(items)
            }
            Tok::LBrace => {
                self.depth += 1;
                let mut pairs = Vec::new();
                loop {
                    self.skip_soft_ends();
                    if self.peek() == Some(&Tok::RBrace) {
                        self.i += 1;
                        break;
                    }
                    let k = self.value()?;
                    self.skip_soft_ends();
                    match self.next() {
                        Some((Tok::Arrow, _)) => {}
                        Some((t, p)) => {
                            return Err(SyntaxError::at(
                                p,
                                format!("expected `=>` after a hash key, found {}", describe(&t)),
                            ))
                        }
                        None => return Err(self.eof("a hash")),
                    }
                    self.skip_soft_ends();
                    let v = self.value()?;
                    pairs.push((k, v));
                    self.skip_soft_ends();
                    match self.next() {
                        Some((Tok::Comma, _)) => continue,
                        Some((Tok::RBrace, _)) => break,
                        Some((t, p)) => {
                            return Err(SyntaxError::at(
                                p,
                                format!(
                                    "expected `,` or `}}` in the hash opened at {pos}, found {}",
                                    describe(&t)
                                ),
                            ))
                        }
                        None => return Err(self.eof("a hash")),
                    }
                }
                self.depth -= 1;
                Kind::Hash(pairs)
            }
            other => {
                return Err(SyntaxError::at(
                    pos,
                    format!("expected a value, found {}", describe(&other)),
                ))
            }
        };
        Ok(Value { pos, kind })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(input: &str) -> SyntaxError {
        parse(input).expect_err("should fail")
    }

    #[test]
    fn seed_create_with_splits() {
        let cmds = parse("create 'access-logs', 't', {SPLITS => ['1', '2', 'f']}").unwrap();
        assert_eq!(cmds.len(), 1);
        assert_eq!(cmds[0].name, "create");
        assert_eq!(cmds[0].args.len(), 3);
        let Kind::Hash(pairs) = &cmds[0].args[2].kind else {
            panic!("not a hash")
        };
        assert_eq!(pairs[0].0.kind, Kind::Str(b"SPLITS".to_vec()));
        assert_eq!(pairs[0].1.pos, Pos { line: 1, col: 39 });
    }

    #[test]
    fn trailing_pairs_form_one_hash() {
        let cmds = parse("alter 't1', NAME => 'f1', KEEP_DELETED_CELLS => true").unwrap();
        assert_eq!(cmds[0].args.len(), 2);
        let Kind::Hash(pairs) = &cmds[0].args[1].kind else {
            panic!("not a hash")
        };
        assert_eq!(pairs.len(), 2);
        assert_eq!(pairs[1].1.kind, Kind::Bool(true));
    }

    #[test]
    fn quotes_follow_ruby() {
        let cmds = parse(r#"put 't', "\x00\x01a", 'f:q', '\x00'"#).unwrap();
        assert_eq!(cmds[0].args[1].kind, Kind::Str(vec![0, 1, b'a']));
        assert_eq!(cmds[0].args[3].kind, Kind::Str(b"\\x00".to_vec()));
        let cmds = parse(r"put 't', 'it\'s', 'a\\b'").unwrap();
        assert_eq!(cmds[0].args[1].kind, Kind::Str(b"it's".to_vec()));
        assert_eq!(cmds[0].args[2].kind, Kind::Str(b"a\\b".to_vec()));
    }

    #[test]
    fn several_commands_and_parens() {
        let cmds = parse("list; exists('t')\n\nscan 't', {LIMIT => 2}\n").unwrap();
        let names: Vec<_> = cmds.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["list", "exists", "scan"]);
        assert_eq!(cmds[2].pos, Pos { line: 3, col: 1 });
    }

    #[test]
    fn unclosed_input_is_incomplete() {
        for input in [
            "create 't', {NAME => 'f'",
            "put 't', 'r",
            "create 't', [",
            "get 't',",
            "scan 't', {LIMIT =>",
        ] {
            assert!(err(input).incomplete, "{input}");
        }
        let cmds = parse("create 't',\n  {NAME => 'f',\n   VERSIONS => 3}").unwrap();
        assert_eq!(cmds[0].args.len(), 2);
    }

    #[test]
    fn errors_name_construct_and_position() {
        let e = err("scan 't', {FILTER => :foo}");
        assert_eq!((e.pos, e.incomplete), (Pos { line: 1, col: 22 }, false));
        assert!(e.message.contains("symbols"), "{}", e.message);
        let e = err("list\nput 't', x, 'f:q', 'v'");
        assert_eq!(e.pos, Pos { line: 2, col: 10 });
        assert!(e.message.contains("`x`"), "{}", e.message);
        let e = err("get 't', \"#{row}\"");
        assert_eq!(e.pos, Pos { line: 1, col: 11 });
        assert!(e.message.contains("interpolation"));
        let e = err("get 't', 'r', {COLUMNZ => 'f'}");
        assert_eq!(e.pos, Pos { line: 1, col: 16 });
        assert!(e.message.contains("unknown constant `COLUMNZ`"));
        let e = err("t = create 't', 'f'");
        assert_eq!(e.pos, Pos { line: 1, col: 3 });
        let e = err("alter \u{2018}t1\u{2032}, NAME => 'f1'");
        assert_eq!(e.pos, Pos { line: 1, col: 7 });
        assert!(e.message.contains("typographic quote"));
        let e = err("scan 't', {LIMIT => 1.5}");
        assert_eq!(e.pos, Pos { line: 1, col: 21 });
        let e = err("get 't', 'r' 'x'");
        assert_eq!(e.pos, Pos { line: 1, col: 14 });
        let e = err("put 't', 'r', NAME => 'v', 'x'");
        assert!(e.message.contains("plain argument"));
    }
}
