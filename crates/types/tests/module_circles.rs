//! No crate of the workspace has an import circle between its modules (`docs/architecture.md`,
//! "Crates and what they may import").
//!
//! Each crate's module tree is read from its `lib.rs` or `main.rs` with `syn`, test modules
//! (`#[cfg(test)]`) left out. A module depends on another when one of its paths names it or
//! an item in it: `use` trees and paths in code or in macro arguments, starting with `crate`,
//! `super`, `self` or a child module's name. A path to an item a module re-exports with `use`
//! is followed to where the item lives, so `crate::Foo` depends on the module defining `Foo`,
//! not on the crate root. A submodule using its ancestors' own items (`super::Foo`) is part of
//! them and adds no dependency; a parent using its submodule does. Every strongly connected
//! set of two or more modules is a circle, reported with one path around it.

use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// A module's path below its crate root (empty for the root).
type ModPath = Vec<String>;

#[derive(Default)]
struct Module {
    children: BTreeSet<String>,
    /// Names bound by `use` in the module, with the path they stand for (as written).
    bindings: BTreeMap<String, Vec<String>>,
    /// Every path the module names (as written), `use` trees included.
    paths: Vec<Vec<String>>,
    /// Modules glob-imported (`use x::*`), as written.
    globs: Vec<Vec<String>>,
    /// Names of the items the module defines (not those it imports).
    items: BTreeSet<String>,
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|attr| attr.path().is_ident("cfg") && attr.parse_args::<syn::Ident>().is_ok_and(|ident| ident == "test"))
}

/// Collects the paths of one module's items, not descending into its inline submodules.
struct Collector<'a> {
    module: &'a mut Module,
    inline: Vec<(String, Vec<syn::Item>)>,
}

impl Collector<'_> {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) => self.bind(prefix, &name.ident, &name.ident),
            syn::UseTree::Rename(rename) => self.bind(prefix, &rename.ident, &rename.rename),
            syn::UseTree::Glob(_) => self.module.globs.push(prefix.clone()),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    fn bind(&mut self, prefix: &[String], name: &syn::Ident, bound: &syn::Ident) {
        let mut path = prefix.to_vec();
        if name != "self" {
            path.push(name.to_string());
        }
        if path.is_empty() {
            return;
        }
        let bound = if bound == "self" { path.last().cloned().unwrap_or_default() } else { bound.to_string() };
        if bound != "_" {
            self.module.bindings.insert(bound, path.clone());
        }
        self.module.paths.push(path);
    }

    /// `crate :: a :: b` and the like inside a macro's arguments.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Ident(ident) if ["crate", "super", "self"].contains(&ident.to_string().as_str()) => {
                    let mut path = vec![ident.to_string()];
                    let mut j = i + 1;
                    while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(next))) =
                        (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        path.push(next.to_string());
                        j += 3;
                    }
                    if path.len() > 1 {
                        self.module.paths.push(path);
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if is_test_only(attrs) {
            return;
        }
        let defined = match item {
            syn::Item::Const(i) => Some(&i.ident),
            syn::Item::Enum(i) => Some(&i.ident),
            syn::Item::Fn(i) => Some(&i.sig.ident),
            syn::Item::Static(i) => Some(&i.ident),
            syn::Item::Struct(i) => Some(&i.ident),
            syn::Item::Trait(i) => Some(&i.ident),
            syn::Item::Type(i) => Some(&i.ident),
            syn::Item::Macro(i) => i.ident.as_ref(),
            _ => None,
        };
        if let Some(ident) = defined {
            self.module.items.insert(ident.to_string());
        }
        match item {
            syn::Item::Mod(module) => {
                self.module.children.insert(module.ident.to_string());
                if let Some((_, items)) = &module.content {
                    self.inline.push((module.ident.to_string(), items.clone()));
                }
            }
            syn::Item::Use(use_item) => {
                if use_item.leading_colon.is_none() {
                    self.use_tree(&mut Vec::new(), &use_item.tree);
                }
            }
            _ => syn::visit::visit_item(self, item),
        }
    }

    fn visit_impl_item_fn(&mut self, function: &'ast syn::ImplItemFn) {
        if !is_test_only(&function.attrs) {
            syn::visit::visit_impl_item_fn(self, function);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            self.module.paths.push(path.segments.iter().map(|segment| segment.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

/// Reads the module at `path` (its items `items`) and its submodules into `modules`.
fn read_module(modules: &mut BTreeMap<ModPath, Module>, path: ModPath, items: &[syn::Item], dir: &Path, file: &Path) {
    let mut module = Module::default();
    let mut collector = Collector { module: &mut module, inline: Vec::new() };
    for item in items {
        collector.visit_item(item);
    }
    let inline = std::mem::take(&mut collector.inline);
    let children: Vec<String> = module.children.iter().cloned().collect();
    modules.insert(path.clone(), module);
    // Where a file module's submodules live: beside `lib.rs`, `main.rs` and `mod.rs`, in a
    // directory named after the module otherwise.
    let name = file.file_stem().and_then(|stem| stem.to_str()).unwrap_or_default();
    let sub_dir = if ["lib", "main", "mod"].contains(&name) { dir.to_path_buf() } else { dir.join(name) };
    for child in children {
        let mut child_path = path.clone();
        child_path.push(child.clone());
        if let Some((_, items)) = inline.iter().find(|(name, _)| *name == child) {
            let inline_file = sub_dir.join(format!("{child}.rs"));
            read_module(modules, child_path, items, &sub_dir, &inline_file);
            continue;
        }
        let candidates = [sub_dir.join(format!("{child}.rs")), sub_dir.join(&child).join("mod.rs")];
        let child_file = candidates
            .iter()
            .find(|candidate| candidate.exists())
            .unwrap_or_else(|| panic!("module {child} of {}: no file", file.display()));
        let source = std::fs::read_to_string(child_file).expect("a module's source");
        let parsed = syn::parse_file(&source).unwrap_or_else(|e| panic!("{}: {e}", child_file.display()));
        let child_dir = child_file.parent().expect("a module file's directory").to_path_buf();
        read_module(modules, child_path, &parsed.items, &child_dir, child_file);
    }
}

/// The module tree of the crate whose root file is `root_file`.
fn crate_modules(root_file: &Path) -> BTreeMap<ModPath, Module> {
    let source = std::fs::read_to_string(root_file).expect("a crate root");
    let parsed = syn::parse_file(&source).unwrap_or_else(|e| panic!("{}: {e}", root_file.display()));
    let mut modules = BTreeMap::new();
    let dir = root_file.parent().expect("src/").to_path_buf();
    read_module(&mut modules, Vec::new(), &parsed.items, &dir, root_file);
    modules
}

/// Where `written`, named in module `at`, leads: the module holding the item it names (after
/// following re-exports), or `None` for a path outside the crate.
fn resolve(modules: &BTreeMap<ModPath, Module>, at: &ModPath, written: &[String], depth: usize) -> Option<ModPath> {
    if depth > 16 || written.is_empty() {
        return None;
    }
    let module = modules.get(at)?;
    let (mut current, rest): (ModPath, &[String]) = match written[0].as_str() {
        "crate" => (Vec::new(), &written[1..]),
        "self" => (at.clone(), &written[1..]),
        "super" => {
            let mut current = at.clone();
            let mut rest = written;
            while rest.first().is_some_and(|segment| segment == "super") {
                current.pop();
                rest = &rest[1..];
            }
            (current, rest)
        }
        first if module.children.contains(first) => (at.clone(), written),
        first => {
            // A name a `use` of this module brought in: the path it stands for, then the rest.
            let Some(bound) = module.bindings.get(first) else {
                // Or one a glob import brought in.
                let mut path = through_glob(modules, at, first, depth)?;
                path.extend_from_slice(&written[1..]);
                return resolve(modules, at, &path, depth + 1);
            };
            if bound.first() == Some(&written[0]) && bound.len() == 1 {
                return None;
            }
            let mut path = bound.clone();
            path.extend_from_slice(&written[1..]);
            return resolve(modules, at, &path, depth + 1);
        }
    };
    let mut rest = rest;
    while let Some(segment) = rest.first() {
        match modules.get(&current) {
            Some(module) if module.children.contains(segment) => {
                current.push(segment.clone());
                rest = &rest[1..];
            }
            _ => break,
        }
    }
    // An item the module re-exports: where it comes from.
    if let Some(name) = rest.first()
        && let Some(bound) = modules.get(&current).and_then(|module| module.bindings.get(name))
    {
        let mut path = bound.clone();
        path.extend_from_slice(&rest[1..]);
        if let Some(target) = resolve(modules, &current, &path, depth + 1) {
            return Some(target);
        }
    }
    // An item the module re-exports by a glob (`pub use x::*`): where it comes from.
    if let Some(name) = rest.first()
        && modules.get(&current).is_some_and(|module| !module.items.contains(name))
        && let Some(mut path) = through_glob(modules, &current, name, depth)
    {
        path.extend_from_slice(&rest[1..]);
        if let Some(target) = resolve(modules, &current, &path, depth + 1) {
            return Some(target);
        }
    }
    Some(current)
}

/// The path, as written in module `at`, of the glob import of `at` that brings `name` in (the
/// glob's module defines, imports or holds it), with `name` at its end.
fn through_glob(modules: &BTreeMap<ModPath, Module>, at: &ModPath, name: &str, depth: usize) -> Option<Vec<String>> {
    modules.get(at)?.globs.iter().find_map(|glob| {
        let source = modules.get(&resolve(modules, at, glob, depth + 1)?)?;
        let holds = source.items.contains(name) || source.bindings.contains_key(name) || source.children.contains(name);
        holds.then(|| [glob.as_slice(), &[name.to_owned()]].concat())
    })
}

fn name(path: &ModPath) -> String {
    if path.is_empty() { "crate".to_owned() } else { path.join("::") }
}

/// Each module's dependencies on the crate's other modules.
fn dependencies(modules: &BTreeMap<ModPath, Module>) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let mut graph = BTreeMap::new();
    for (at, module) in modules {
        let edges: BTreeSet<ModPath> = module
            .paths
            .iter()
            .chain(&module.globs)
            .filter_map(|written| resolve(modules, at, written, 0))
            // Itself, or an ancestor's own items (the submodule is part of it).
            .filter(|target| !at.starts_with(target))
            .collect();
        graph.insert(at.clone(), edges);
    }
    graph
}

/// The strongly connected sets of two or more modules (Tarjan).
fn circles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'a> {
        graph: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        found: Vec<Vec<ModPath>>,
    }
    fn connect<'a>(state: &mut State<'a>, node: &'a ModPath) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        for target in state.graph.get(node).into_iter().flatten() {
            let Some((target, _)) = state.graph.get_key_value(target) else { continue };
            if !state.index.contains_key(target) {
                connect(state, target);
                let low = state.low[target].min(state.low[node]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.index[target].min(state.low[node]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut members = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(member);
                members.push(member.clone());
                if member == node {
                    break;
                }
            }
            if members.len() > 1 {
                members.sort();
                state.found.push(members);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node) {
            connect(&mut state, node);
        }
    }
    state.found
}

/// One way around the circle `members`, from its first member back to it.
fn way_around(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>, members: &[ModPath]) -> String {
    let start = &members[0];
    // Breadth-first from the start's successors back to the start, inside the circle.
    let mut came_from: BTreeMap<&ModPath, &ModPath> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in &graph[node] {
            if members.contains(next) && !came_from.contains_key(next) {
                came_from.insert(next, node);
                if next == start {
                    queue.clear();
                    break;
                }
                queue.push_back(next);
            }
        }
    }
    let mut way = vec![name(start)];
    let mut node = start;
    while let Some(previous) = came_from.get(node) {
        way.push(name(previous));
        node = previous;
        if node == start {
            break;
        }
    }
    way.reverse();
    way.join(" -> ")
}

fn crate_roots() -> Vec<(String, PathBuf)> {
    let crates_dir = Path::new(ROOT).join("crates");
    let mut roots: Vec<(String, PathBuf)> = std::fs::read_dir(&crates_dir)
        .expect("crates/")
        .filter_map(|entry| {
            let name = entry.expect("an entry of crates/").file_name().to_string_lossy().into_owned();
            let src = crates_dir.join(&name).join("src");
            ["lib.rs", "main.rs"].iter().map(|file| src.join(file)).find(|file| file.exists()).map(|file| (name, file))
        })
        .collect();
    roots.sort();
    roots
}

#[test]
fn no_crate_has_an_import_circle_between_its_modules() {
    let roots = crate_roots();
    assert!(roots.len() > 10, "every crate of crates/ is read: {roots:?}");
    let mut found = Vec::new();
    let mut ways = Vec::new();
    for (crate_name, root) in roots {
        let graph = dependencies(&crate_modules(&root));
        for members in circles(&graph) {
            let names: Vec<String> = members.iter().map(name).collect();
            found.push(format!("{crate_name}: {}", names.join(", ")));
            ways.push(format!("{crate_name}: {}", way_around(&graph, &members)));
        }
    }
    assert_eq!(found, Vec::<String>::new(), "import circles between modules (one way around each: {ways:#?})");
}

#[test]
fn a_circle_is_found_through_a_re_export_and_not_between_a_module_and_its_parent() {
    let source = |text: &str| syn::parse_file(text).expect("test source").items;
    let mut modules = BTreeMap::new();
    let root = source("mod a; mod b; mod c; mod d; mod e; pub use b::Thing; pub use e::*;");
    let mut root_module = Module::default();
    let mut collector = Collector { module: &mut root_module, inline: Vec::new() };
    for item in &root {
        collector.visit_item(item);
    }
    modules.insert(Vec::new(), root_module);
    for (name, text) in [
        // `a` reaches `b` through the root's re-export; `b` calls back into `a` in a macro.
        ("a", "use crate::Thing; pub fn f() {}"),
        ("b", "pub struct Thing; fn g() { println!(\"{:?}\", crate::a::f()) }"),
        // `c` only uses its parent's own items and a test module that would close a circle.
        ("c", "use super::*; #[cfg(test)] mod tests { use crate::a::f; }"),
        // `d` reaches `e` through the root's glob re-export, `e` reaches `d` through its
        // parent's glob import.
        ("d", "pub fn h() -> crate::Other { todo!() }"),
        ("e", "use super::*; pub struct Other; fn k() { d::h(); }"),
    ] {
        let mut module = Module::default();
        let mut collector = Collector { module: &mut module, inline: Vec::new() };
        for item in &source(text) {
            collector.visit_item(item);
        }
        modules.insert(vec![name.to_owned()], module);
    }
    let graph = dependencies(&modules);
    let module = |name: &str| vec![name.to_owned()];
    assert_eq!(circles(&graph), vec![vec![module("a"), module("b")], vec![module("d"), module("e")]]);
    assert_eq!(way_around(&graph, &[vec!["a".to_owned()], vec!["b".to_owned()]]), "a -> b -> a");
    assert!(graph[&vec!["c".to_owned()]].is_empty(), "{graph:?}");
}
