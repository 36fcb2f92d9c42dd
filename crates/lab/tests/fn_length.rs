//! No function of the lab or of the command-line crate is longer than [`MAX_LINES`] lines: an
//! experiment is plan → run → analyse → render, each stage a function of its own with typed
//! values between them. The sources are parsed (`syn`), and every `fn` — free, in an `impl` or
//! a trait, nested or not — is measured from its `fn` keyword to its closing brace.
//!
//! The functions still longer are listed in [`LONGER`] with their length: one of them may not
//! grow, and one that is split must leave the list (so the list only shrinks).

use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// Longest function allowed, lines.
const MAX_LINES: usize = 150;

/// The functions still over [`MAX_LINES`]: (file under the repository, function, its lines).
const LONGER: &[(&str, &str, usize)] = &[];

/// A function: where, its name (`Type::name` in an `impl`), how many lines.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Function {
    file: String,
    name: String,
    lines: usize,
}

struct Collect<'a> {
    file: &'a str,
    owner: Vec<String>,
    out: Vec<Function>,
}

impl Collect<'_> {
    fn add(&mut self, ident: &syn::Ident, fn_token: &syn::token::Fn, block: &syn::Block) {
        let start = fn_token.span.start().line;
        let end = block.brace_token.span.close().end().line;
        let name = match self.owner.last() {
            Some(o) => format!("{o}::{ident}"),
            None => ident.to_string(),
        };
        self.out.push(Function {
            file: self.file.to_owned(),
            name,
            lines: end + 1 - start,
        });
    }
}

impl<'ast> Visit<'ast> for Collect<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.add(&f.sig.ident, &f.sig.fn_token, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let ty = &i.self_ty;
        let owner = match &**ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map_or_else(|| "impl".to_owned(), |s| s.ident.to_string()),
            _ => "impl".to_owned(),
        };
        self.owner.push(owner);
        syn::visit::visit_item_impl(self, i);
        self.owner.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.add(&f.sig.ident, &f.sig.fn_token, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.add(&f.sig.ident, &f.sig.fn_token, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Every function of the lab's and the command-line crate's sources.
fn functions() -> Vec<Function> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["crates/lab/src", "crates/schedtcp/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let name = f.strip_prefix(&root).unwrap().display().to_string();
        let mut c = Collect {
            file: &name,
            owner: Vec::new(),
            out: Vec::new(),
        };
        c.visit_file(&ast);
        out.extend(c.out);
    }
    out.sort();
    out
}

#[test]
fn no_function_is_longer_than_the_limit() {
    let all = functions();
    assert!(all.len() > 300, "only {} functions found", all.len());
    let mut problems = Vec::new();
    for f in all.iter().filter(|f| f.lines > MAX_LINES) {
        match LONGER
            .iter()
            .find(|(file, name, _)| *file == f.file && *name == f.name)
        {
            None => problems.push(format!(
                "{}: {} is {} lines (at most {MAX_LINES})",
                f.file, f.name, f.lines
            )),
            Some(&(_, _, lines)) if f.lines > lines => problems.push(format!(
                "{}: {} grew from {lines} to {} lines",
                f.file, f.name, f.lines
            )),
            Some(_) => {}
        }
    }
    for (file, name, _) in LONGER {
        if !all
            .iter()
            .any(|f| f.file == *file && f.name == *name && f.lines > MAX_LINES)
        {
            problems.push(format!(
                "{file}: {name} is no longer over {MAX_LINES} lines: take it off the list"
            ));
        }
    }
    let longest = all.iter().max_by_key(|f| f.lines).unwrap();
    eprintln!(
        "{} functions; the longest: {} in {} ({} lines)",
        all.len(),
        longest.name,
        longest.file,
        longest.lines
    );
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
