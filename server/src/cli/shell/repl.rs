//! Where commands come from: `-e`, a script file, standard input, or a terminal session with
//! a line editor (history in `~/.redbase_shell_history`, tab completion of commands and table
//! names). Lines gather until they parse: an open quote or bracket, or a trailing comma,
//! continues on the next line. With `-n` the first failing command ends the run with exit
//! status 1, as HBase's `-n`; without it a script runs on and exits 1 if anything failed.

use crate::generated::hbase2::TTHBaseServiceSyncClient as _;
use std::io::{BufRead, IsTerminal, Read};
use std::sync::{Arc, Mutex};

use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use super::commands::{execute, COMMANDS};
use super::parser::{parse, shift_lines};
use super::{args::show_table, Session, ShellArgs};

/// What a batch of input did.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    /// `exit`/`quit`, or `-n` after an error.
    Stop,
}

/// Input gathered until it parses, and where it started (for error positions).
struct Pending {
    text: String,
    first_line: usize,
}

struct Runner<'a> {
    session: &'a mut Session,
    stop_on_error: bool,
    failed: bool,
    /// Whether the user was told that a pasted prompt is left out (once per run).
    prompt_noted: bool,
}

impl<'a> Runner<'a> {
    fn new(session: &'a mut Session, stop_on_error: bool) -> Runner<'a> {
        Runner {
            session,
            stop_on_error,
            failed: false,
            prompt_noted: false,
        }
    }

    /// Adds one line; runs the commands once the gathered text parses. Returns whether more
    /// lines are needed to finish the pending input.
    fn feed(&mut self, pending: &mut Pending, line: &str, line_no: usize) -> (Flow, bool) {
        let line = match strip_prompt(line) {
            Some((prompt, rest)) => {
                if !self.prompt_noted {
                    self.prompt_noted = true;
                    let note = format!(
                        "(left out the shell prompt `{}` the line was pasted with; the same \
                         from now on without saying so)",
                        prompt.trim()
                    );
                    // JSON output stays one object per line: the note goes to standard error.
                    if self.session.out.json {
                        eprintln!("{note}");
                    } else {
                        self.session.out.line(&note);
                        self.session.out.flush();
                    }
                }
                rest
            }
            None => line,
        };
        if pending.text.is_empty() {
            pending.first_line = line_no;
        }
        pending.text.push_str(line);
        pending.text.push('\n');
        match parse(&pending.text) {
            Ok(mut cmds) => {
                pending.text.clear();
                shift_lines(&mut cmds, pending.first_line - 1);
                for cmd in &cmds {
                    if cmd.name == "exit" || cmd.name == "quit" {
                        return (Flow::Stop, false);
                    }
                    if execute(self.session, cmd).is_err() {
                        self.failed = true;
                        if self.stop_on_error {
                            return (Flow::Stop, false);
                        }
                    }
                }
                (Flow::Continue, false)
            }
            Err(e) if e.incomplete => (Flow::Continue, true),
            Err(e) => {
                pending.text.clear();
                let mut pos = e.pos;
                pos.line += pending.first_line - 1;
                self.syntax_error(&format!("syntax error at {pos}: {}", e.message));
                let flow = if self.stop_on_error {
                    Flow::Stop
                } else {
                    Flow::Continue
                };
                (flow, false)
            }
        }
    }

    fn syntax_error(&mut self, msg: &str) {
        self.failed = true;
        if self.session.out.json {
            self.session.out.json(serde_json::json!({"error": msg}));
        } else {
            self.session.out.line(&format!("ERROR: {msg}"));
            self.session.out.line("");
        }
        self.session.out.flush();
    }

    fn finish(&mut self, pending: &Pending) {
        if !pending.text.trim().is_empty() {
            let msg = match parse(&pending.text) {
                Err(e) => format!(
                    "input ends early: {} (started at line {})",
                    e.message, pending.first_line
                ),
                Ok(_) => "input ends early".into(),
            };
            self.syntax_error(&msg);
        }
    }
}

/// HBase's shell prompts (`hbase(main):006:0> `, `hbase:001:0> `, `hbase> `, the continuation
/// `hbase(main):006:1* `) and this shell's own (`redbase:001:0> `) at the start of a line, as
/// a line copied from a terminal session carries them: `(prompt, the rest)`.
pub fn strip_prompt(line: &str) -> Option<(&str, &str)> {
    static PROMPT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^\s*(?:hbase|redbase)(?:\([^)\s]*\))?(?::\d+)*\s*[>*] ?")
            .expect("the prompt pattern")
    });
    let m = PROMPT.find(line)?;
    Some(line.split_at(m.end()))
}

fn exit_code(failed: bool) -> std::process::ExitCode {
    if failed {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}

/// Runs the text of a script (or `-e`) line by line.
fn run_text(runner: &mut Runner<'_>, text: &str) {
    let mut pending = Pending {
        text: String::new(),
        first_line: 1,
    };
    for (i, line) in text.lines().enumerate() {
        if runner.feed(&mut pending, line, i + 1).0 == Flow::Stop {
            return;
        }
    }
    runner.finish(&pending);
}

pub fn run(session: &mut Session, args: &ShellArgs) -> std::process::ExitCode {
    let stop_on_error = args.non_interactive;
    if let Some(e) = &args.execute {
        let mut runner = Runner::new(session, stop_on_error);
        run_text(&mut runner, e);
        return exit_code(runner.failed);
    }
    if let Some(path) = &args.script {
        let text = match std::fs::read(path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                eprintln!("redbase shell: cannot read {}: {e}", path.display());
                return std::process::ExitCode::FAILURE;
            }
        };
        let mut runner = Runner::new(session, stop_on_error);
        run_text(&mut runner, &text);
        return exit_code(runner.failed);
    }
    if !std::io::stdin().is_terminal() {
        let mut runner = Runner::new(session, stop_on_error);
        let stdin = std::io::stdin();
        let mut pending = Pending {
            text: String::new(),
            first_line: 1,
        };
        let mut raw = Vec::new();
        let mut lock = stdin.lock();
        let mut line_no = 0;
        loop {
            raw.clear();
            match lock.read_until(b'\n', &mut raw) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    eprintln!("redbase shell: cannot read standard input: {e}");
                    return std::process::ExitCode::FAILURE;
                }
            }
            line_no += 1;
            let line = String::from_utf8_lossy(&raw);
            if runner
                .feed(&mut pending, line.trim_end_matches(['\n', '\r']), line_no)
                .0
                == Flow::Stop
            {
                return exit_code(runner.failed);
            }
        }
        runner.finish(&pending);
        // Reading to the end keeps a writer on the other side of a pipe from failing.
        let _ = lock.read_to_end(&mut raw);
        return exit_code(runner.failed);
    }
    interactive(session, stop_on_error)
}

/// Tab completion: command names first, table names inside the quotes after one.
struct ShellHelper {
    tables: Arc<Mutex<Vec<String>>>,
}

impl Completer for ShellHelper {
    type Candidate = String;
    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let start = before
            .rfind(|c: char| {
                c.is_whitespace() || c == ',' || c == '(' || c == '\'' || c == '"' || c == ';'
            })
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        let head = before[..start].trim_start();
        let first_word = !head.contains(|c: char| c.is_ascii_alphanumeric());
        let mut out: Vec<String> = if first_word {
            COMMANDS
                .iter()
                .map(|c| c.name.to_string())
                .filter(|n| n.starts_with(word))
                .collect()
        } else {
            // Inside a quote, a completed table name closes it.
            let quote = before[..start]
                .chars()
                .last()
                .filter(|c| *c == '\'' || *c == '"');
            let tables = self.tables.lock().map(|t| t.clone()).unwrap_or_default();
            tables
                .into_iter()
                .filter(|t| t.starts_with(word))
                .map(|t| match quote {
                    Some(q) => format!("{t}{q}"),
                    None => t,
                })
                .collect()
        };
        out.sort();
        out.dedup();
        Ok((start, out))
    }
}
impl Hinter for ShellHelper {
    type Hint = String;
}
impl Highlighter for ShellHelper {}
impl Validator for ShellHelper {}
impl Helper for ShellHelper {}

fn refresh_tables(session: &mut Session, tables: &Arc<Mutex<Vec<String>>>) {
    if let Ok(names) = session.call(|c| c.get_table_names_by_pattern(".*".into(), false)) {
        if let Ok(mut t) = tables.lock() {
            *t = names.iter().map(show_table).collect();
        }
    }
}

fn interactive(session: &mut Session, stop_on_error: bool) -> std::process::ExitCode {
    // Tab with several matches lists them under the line, as irb and bash do.
    let config = rustyline::Config::builder()
        .completion_type(rustyline::CompletionType::List)
        .build();
    let mut editor: Editor<ShellHelper, rustyline::history::DefaultHistory> =
        match Editor::with_config(config) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("redbase shell: cannot start the line editor: {e}");
                return std::process::ExitCode::FAILURE;
            }
        };
    // Ctrl-C while a command runs sets this flag (scans and counts stop at their next batch)
    // instead of ending the shell; at the prompt the line editor reads Ctrl-C as a key. It is
    // registered after the editor exists: the editor installs its own SIGINT action when it
    // opens the terminal, and ours (with SA_RESTART, calling the editor's too) must be on top.
    if let Err(e) =
        signal_hook::flag::register(signal_hook::consts::SIGINT, session.interrupted.clone())
    {
        eprintln!("redbase shell: Ctrl-C will end the shell ({e})");
    }
    let tables = Arc::new(Mutex::new(Vec::new()));
    editor.set_helper(Some(ShellHelper {
        tables: tables.clone(),
    }));
    let history = std::env::var_os("HOME")
        .map(|h| std::path::PathBuf::from(h).join(".redbase_shell_history"));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    println!(
        "redbase shell: HBase shell commands over Thrift2 at {}",
        session.addr()
    );
    println!("Type 'help' for the commands, 'exit' to leave.");
    refresh_tables(session, &tables);
    let mut runner = Runner::new(session, stop_on_error);
    let mut pending = Pending {
        text: String::new(),
        first_line: 1,
    };
    let mut line_no = 0usize;
    let mut count = 1usize;
    let mut entry = String::new();
    loop {
        let prompt = if pending.text.is_empty() {
            format!("redbase:{count:03}:0> ")
        } else {
            format!("redbase:{count:03}:1* ")
        };
        match editor.readline(&prompt) {
            Ok(line) => {
                line_no += 1;
                // History keeps whole commands: the lines of a multi-line one together.
                if !entry.is_empty() {
                    entry.push('\n');
                }
                entry.push_str(&line);
                let (flow, more) = runner.feed(&mut pending, &line, line_no);
                if !more {
                    if !entry.trim().is_empty() {
                        let _ = editor.add_history_entry(entry.as_str());
                    }
                    entry.clear();
                }
                if flow == Flow::Stop {
                    break;
                }
                if !more {
                    count += 1;
                    refresh_tables(runner.session, &tables);
                }
            }
            Err(ReadlineError::Interrupted) => {
                pending.text.clear();
                entry.clear();
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("redbase shell: {e}");
                break;
            }
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    exit_code(runner.failed && stop_on_error)
}

#[cfg(test)]
mod tests {
    use super::strip_prompt;

    #[test]
    fn pasted_prompts_are_recognised() {
        for (line, prompt, rest) in [
            (
                "hbase(main):006:0> incr 't', 'r', 'c:q'",
                "hbase(main):006:0> ",
                "incr 't', 'r', 'c:q'",
            ),
            ("hbase> list", "hbase> ", "list"),
            ("hbase:001:0> scan 't'", "hbase:001:0> ", "scan 't'"),
            ("hbase(main):002:1* 'f'", "hbase(main):002:1* ", "'f'"),
            (
                "  redbase:012:0> exists 't'",
                "  redbase:012:0> ",
                "exists 't'",
            ),
            ("hbase>", "hbase>", ""),
        ] {
            assert_eq!(strip_prompt(line), Some((prompt, rest)), "{line}");
        }
        for line in [
            "list",
            "scan 'hbase>'",
            "hbaseline",
            "put 't', 'hbase> ', 'f:q', 'v'",
        ] {
            assert_eq!(strip_prompt(line), None, "{line}");
        }
    }
}
