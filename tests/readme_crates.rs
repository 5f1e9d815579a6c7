//! The README's crate table against the `Cargo.toml`s: a row per workspace
//! crate, in its folder, and its "depends on" column names exactly the
//! workspace crates its `[dependencies]` list (dev-dependencies are left out:
//! every crate's tests use the test kit).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One workspace crate, as its `Cargo.toml` has it.
struct Member {
    /// Its folder relative to the workspace root (`.` for the root crate).
    folder: String,
    /// Its package name (`dstar-frontend`).
    package: String,
    /// The package names of the workspace crates among its `[dependencies]`.
    depends_on: BTreeSet<String>,
}

/// A row of the README's table: the crate's name, folder and dependencies.
struct Row {
    name: String,
    folder: String,
    depends_on: BTreeSet<String>,
}

#[test]
fn readme_crate_table_matches_the_manifests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let members = workspace_members(root);
    let rows = crate_table(&read(&root.join("README.md")));
    // A crate's row: the one named by its package name, or by it without `dstar-`.
    let row_of = |package: &str| {
        let short = package.strip_prefix("dstar-").unwrap_or(package);
        rows.iter().find(|r| r.name == package || r.name == short)
    };
    let mut wrong = vec![];
    let mut named = BTreeSet::new();
    for member in &members {
        let Some(row) = row_of(&member.package) else {
            wrong.push(format!("no row for {}", member.package));
            continue;
        };
        let folder = if member.folder == "." { "src/".to_string() } else { format!("{}/", member.folder) };
        if row.folder != folder {
            wrong.push(format!(
                "{}: in `{}` says the table, in `{folder}` the workspace",
                row.name, row.folder
            ));
        }
        let manifest: BTreeSet<String> =
            member.depends_on.iter().map(|p| row_of(p).map_or(p.clone(), |r| r.name.clone())).collect();
        if row.depends_on != manifest {
            let table = &row.depends_on;
            wrong.push(format!(
                "{}: depends on {table:?} says the table, {manifest:?} its Cargo.toml",
                row.name
            ));
        }
        named.insert(row.name.clone());
    }
    let strays = rows.iter().filter(|r| !named.contains(&r.name));
    wrong.extend(strays.map(|r| format!("{}: a row, but no such crate", r.name)));
    assert!(wrong.is_empty(), "README.md's crate table against the Cargo.tomls:\n{}", wrong.join("\n"));
}

/// The root crate and the `[workspace] members` of the root `Cargo.toml`.
fn workspace_members(root: &Path) -> Vec<Member> {
    let manifest = read(&root.join("Cargo.toml"));
    let workspace = section(&manifest, "workspace");
    let start = workspace.find("members = [").expect("[workspace] lists its members") + "members = [".len();
    let end = start + workspace[start..].find(']').expect("the members' closing bracket");
    let mut folders = vec![".".to_string()];
    folders.extend(workspace[start..end].split(',').map(|m| m.trim().trim_matches('"').to_string()));
    folders.retain(|f| !f.is_empty());
    // `[workspace.dependencies]` entries with a path are workspace crates.
    let shared: BTreeMap<String, String> = section(&manifest, "workspace.dependencies")
        .lines()
        .filter_map(|line| Some((key(line)?, quoted(line, "path")?)))
        .collect();
    let member = |folder: &str| {
        let text = read(&root.join(folder).join("Cargo.toml"));
        let mut depends_on = BTreeSet::new();
        for line in section(&text, "dependencies").lines() {
            let Some(name) = key(line) else { continue };
            let path = if line.contains("workspace = true") || line.contains(".workspace") {
                shared.get(&name).map(|p| root.join(p))
            } else {
                quoted(line, "path").map(|p| root.join(folder).join(p))
            };
            if let Some(path) = path {
                depends_on.insert(package_name(&read(&path.join("Cargo.toml"))));
            }
        }
        Member { folder: folder.to_string(), package: package_name(&text), depends_on }
    };
    folders.iter().map(|f| member(f)).collect()
}

/// The table under `| crate (folder) | what it holds | depends on |`.
fn crate_table(readme: &str) -> Vec<Row> {
    let header = "| crate (folder) | what it holds | depends on |";
    let start = readme.find(header).expect("README.md has the crate table");
    let lines = readme[start..].lines().skip(2).take_while(|l| l.starts_with('|'));
    let row = |line: &str| {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let ticked: Vec<&str> = cells[0].split('`').skip(1).step_by(2).collect();
        let depends_on = match cells[cells.len() - 1] {
            "—" => BTreeSet::new(),
            list => list.split(',').map(|d| d.trim().to_string()).collect(),
        };
        Row { name: ticked[0].to_string(), folder: ticked[1].to_string(), depends_on }
    };
    lines.map(row).collect()
}

/// The lines of `[name]` in a TOML text, up to the next section header.
fn section<'t>(toml: &'t str, name: &str) -> &'t str {
    let header = format!("\n[{name}]\n");
    let Some(start) = format!("\n{toml}").find(&header) else { return "" };
    let body = &toml[start + header.len() - 1..];
    &body[..body.find("\n[").map_or(body.len(), |end| end + 1)]
}

/// The key of a `key = value` or `key.workspace = true` line.
fn key(line: &str) -> Option<String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let key = line.split('=').next()?.trim();
    Some(key.strip_suffix(".workspace").unwrap_or(key).to_string())
}

/// The string value of `field = "..."` within a line.
fn quoted(line: &str, field: &str) -> Option<String> {
    let start = line.find(&format!("{field} = \""))? + field.len() + 4;
    let end = start + line[start..].find('"')?;
    Some(line[start..end].to_string())
}

/// The `name` of a manifest's `[package]`.
fn package_name(manifest: &str) -> String {
    let name = section(manifest, "package").lines().find_map(|l| l.strip_prefix("name = "));
    name.expect("a package name").trim_matches('"').to_string()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
