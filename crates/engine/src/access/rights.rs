//! What a user or role may do: a tree of objects (`*.*`, then databases,
//! tables, columns), each node holding the privileges granted there and
//! those with GRANT OPTION. A node without a child for an object lends that
//! object its own flags (limited to what applies there), so `GRANT SELECT
//! ON *.*` covers every table, and `REVOKE SELECT ON secret.*` after it is a
//! child that lacks SELECT: a partial revoke.

use std::collections::BTreeMap;

use super::privileges::{AccessFlags, Depth, catalog};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Node {
    access: AccessFlags,
    grant_option: AccessFlags,
    children: BTreeMap<String, Node>,
}

impl Node {
    /// The node an object without its own child has under `self`.
    fn inherited(&self, depth: Depth) -> Node {
        let applicable = catalog().applicable(depth);
        Node {
            access: self.access & applicable,
            grant_option: self.grant_option & applicable,
            children: BTreeMap::new(),
        }
    }

    /// `f` on this node and every descendant, each with its depth.
    fn for_each_below(&mut self, depth: Depth, f: &dyn Fn(&mut Node, Depth)) {
        f(self, depth);
        if let Some(below) = depth.below() {
            for child in self.children.values_mut() {
                child.for_each_below(below, f);
            }
        }
    }

    /// Drops children that say nothing their parent does not.
    fn prune(&mut self, depth: Depth) {
        let Some(below) = depth.below() else {
            return;
        };
        let inherited = self.inherited(below);
        self.children.retain(|_, child| {
            child.prune(below);
            *child != inherited
        });
    }

    fn union(a: &Node, b: &Node, depth: Depth) -> Node {
        let mut node = Node {
            access: a.access | b.access,
            grant_option: a.grant_option | b.grant_option,
            children: BTreeMap::new(),
        };
        if let Some(below) = depth.below() {
            let names: std::collections::BTreeSet<&String> =
                a.children.keys().chain(b.children.keys()).collect();
            for name in names {
                let left = a
                    .children
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| a.inherited(below));
                let right = b
                    .children
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| b.inherited(below));
                node.children
                    .insert(name.clone(), Node::union(&left, &right, below));
            }
        }
        node
    }
}

/// Rights on objects named by a path of at most three names:
/// `[]` is `*.*`, `[db]` is `db.*`, `[db, table]`, `[db, table, column]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessRights {
    root: Node,
}

/// One line of what a rights tree holds, as SHOW GRANTS prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RightsElement {
    pub flags: AccessFlags,
    pub database: Option<String>,
    pub table: Option<String>,
    /// Columns sharing these flags; empty above the column level.
    pub columns: Vec<String>,
    pub grant_option: bool,
    /// A revoke of what the level above grants.
    pub is_partial_revoke: bool,
}

impl RightsElement {
    pub fn depth(&self) -> Depth {
        match (&self.database, &self.table, self.columns.is_empty()) {
            (None, _, _) => Depth::Global,
            (Some(_), None, _) => Depth::Database,
            (Some(_), Some(_), true) => Depth::Table,
            _ => Depth::Column,
        }
    }
}

impl AccessRights {
    /// Everything, with GRANT OPTION.
    pub fn full() -> AccessRights {
        let mut rights = AccessRights::default();
        rights.grant(catalog().all(), &[], true);
        rights
    }

    pub fn is_empty(&self) -> bool {
        self.root == Node::default()
    }

    /// The node at `path`, made from its parent's if it has none yet.
    fn node_mut(&mut self, path: &[&str]) -> &mut Node {
        let mut node = &mut self.root;
        let mut depth = Depth::Global;
        for name in path {
            depth = depth.below().expect("a path has at most three names");
            let inherited = node.inherited(depth);
            node = node.children.entry(name.to_string()).or_insert(inherited);
        }
        node
    }

    pub fn grant(&mut self, flags: AccessFlags, path: &[&str], with_grant_option: bool) {
        self.node_mut(path)
            .for_each_below(Depth::of_path(path.len()), &|node, depth| {
                let applicable = flags & catalog().applicable(depth);
                node.access |= applicable;
                if with_grant_option {
                    node.grant_option |= applicable;
                }
            });
        self.root.prune(Depth::Global);
    }

    /// Takes `flags` away at `path` and below; only their GRANT OPTION when
    /// `grant_option_only`.
    pub fn revoke(&mut self, flags: AccessFlags, path: &[&str], grant_option_only: bool) {
        self.node_mut(path)
            .for_each_below(Depth::of_path(path.len()), &|node, _| {
                node.grant_option -= flags;
                if !grant_option_only {
                    node.access -= flags;
                }
            });
        self.root.prune(Depth::Global);
    }

    /// Everything either grants.
    pub fn union(&self, other: &AccessRights) -> AccessRights {
        let mut root = Node::union(&self.root, &other.root, Depth::Global);
        root.prune(Depth::Global);
        AccessRights { root }
    }

    /// The node that decides for `path`: its own or the nearest above.
    fn deciding(&self, path: &[&str]) -> (&Node, Depth, usize) {
        let mut node = &self.root;
        let mut depth = Depth::Global;
        for (walked, name) in path.iter().enumerate() {
            match node.children.get(*name) {
                Some(child) => {
                    node = child;
                    depth = depth.below().expect("a path has at most three names");
                }
                None => return (node, depth, walked),
            }
        }
        (node, depth, path.len())
    }

    /// The privileges granted on the object at `path`.
    pub fn flags_at(&self, path: &[&str]) -> AccessFlags {
        let (node, _, _) = self.deciding(path);
        node.access & catalog().applicable(Depth::of_path(path.len()))
    }

    /// Whether every privilege of `flags` is granted on the object at `path`.
    pub fn is_granted(&self, flags: AccessFlags, path: &[&str]) -> bool {
        let (node, _, _) = self.deciding(path);
        node.access
            .contains(flags & catalog().applicable(Depth::of_path(path.len())))
    }

    /// Whether `flags` may be granted on to others at `path`: with GRANT
    /// OPTION there and on every object below it.
    pub fn has_grant_option(&self, flags: AccessFlags, path: &[&str]) -> bool {
        let (node, depth, walked) = self.deciding(path);
        if walked < path.len() {
            let applicable = catalog().applicable(Depth::of_path(path.len()));
            return node.grant_option.contains(flags & applicable);
        }
        option_everywhere_below(node, flags, depth)
    }

    /// Whether some object at or below `path` has any of `flags`, as
    /// reading a table needs SELECT on at least one of its columns.
    pub fn is_granted_anywhere(&self, flags: AccessFlags, path: &[&str]) -> bool {
        let (node, _, walked) = self.deciding(path);
        if node.access.intersects(flags) {
            return true;
        }
        walked == path.len() && any_below(node, flags)
    }

    /// What the tree holds, as grants and partial revokes relative to the
    /// level above; columns with the same flags share an element.
    pub fn elements(&self) -> Vec<RightsElement> {
        let mut out = Vec::new();
        let empty = Node::default();
        push_elements(&self.root, &empty, &[], &mut out);
        for database in &self.root.children {
            let (name, node) = database;
            push_elements(
                node,
                &self.root.inherited(Depth::Database),
                &[name],
                &mut out,
            );
            for (table, table_node) in &node.children {
                let inherited = node.inherited(Depth::Table);
                push_elements(table_node, &inherited, &[name, table], &mut out);
                push_column_elements(table_node, [name, table], &mut out);
            }
        }
        out
    }
}

fn any_below(node: &Node, flags: AccessFlags) -> bool {
    node.children
        .values()
        .any(|child| child.access.intersects(flags) || any_below(child, flags))
}

fn option_everywhere_below(node: &Node, flags: AccessFlags, depth: Depth) -> bool {
    node.grant_option
        .contains(flags & catalog().applicable(depth))
        && depth.below().is_none_or(|below| {
            node.children
                .values()
                .all(|child| option_everywhere_below(child, flags, below))
        })
}

/// The elements one node adds to or takes from `inherited`.
fn push_elements(node: &Node, inherited: &Node, path: &[&String], out: &mut Vec<RightsElement>) {
    let with_option = node.grant_option - inherited.grant_option;
    let plain = (node.access - inherited.access) - with_option;
    let revoked = inherited.access - node.access;
    let option_revoked = (inherited.grant_option - node.grant_option) & node.access;
    let element = |flags: AccessFlags, grant_option: bool, is_partial_revoke: bool| RightsElement {
        flags,
        database: path.first().map(|s| s.to_string()),
        table: path.get(1).map(|s| s.to_string()),
        columns: path.get(2).map(|s| vec![s.to_string()]).unwrap_or_default(),
        grant_option,
        is_partial_revoke,
    };
    for (flags, grant_option, revoke) in [
        (plain, false, false),
        (with_option, true, false),
        (revoked, false, true),
        (option_revoked, true, true),
    ] {
        if !flags.is_empty() {
            out.push(element(flags, grant_option, revoke));
        }
    }
}

/// A table's column nodes, columns with equal elements merged into one.
fn push_column_elements(table: &Node, path: [&String; 2], out: &mut Vec<RightsElement>) {
    let inherited = table.inherited(Depth::Column);
    let mut merged: Vec<RightsElement> = Vec::new();
    for (column, node) in &table.children {
        let mut elements = Vec::new();
        push_elements(node, &inherited, &[path[0], path[1], column], &mut elements);
        for element in elements {
            let same = merged.iter_mut().find(|m| {
                m.flags == element.flags
                    && m.grant_option == element.grant_option
                    && m.is_partial_revoke == element.is_partial_revoke
            });
            match same {
                Some(existing) => existing.columns.extend(element.columns),
                None => merged.push(element),
            }
        }
    }
    out.extend(merged);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(name: &str) -> AccessFlags {
        catalog().flags(name)
    }

    #[test]
    fn grants_cover_objects_below() {
        let mut rights = AccessRights::default();
        rights.grant(flags("SELECT"), &["db"], false);
        assert!(rights.is_granted(flags("SELECT"), &["db", "t"]));
        assert!(rights.is_granted(flags("SELECT"), &["db", "t", "a"]));
        assert!(!rights.is_granted(flags("SELECT"), &["other", "t"]));
        assert!(!rights.is_granted(flags("INSERT"), &["db", "t"]));
        assert!(!rights.has_grant_option(flags("SELECT"), &["db", "t"]));
    }

    #[test]
    fn partial_revokes_and_columns() {
        let mut rights = AccessRights::default();
        rights.grant(flags("SELECT"), &[], true);
        rights.revoke(flags("SELECT"), &["secret"], false);
        assert!(rights.is_granted(flags("SELECT"), &["db", "t"]));
        assert!(!rights.is_granted(flags("SELECT"), &["secret", "t"]));
        rights.grant(flags("SELECT"), &["secret", "t", "a"], false);
        assert!(rights.is_granted(flags("SELECT"), &["secret", "t", "a"]));
        assert!(!rights.is_granted(flags("SELECT"), &["secret", "t", "b"]));
        assert!(!rights.is_granted(flags("SELECT"), &["secret", "t"]));
        assert!(rights.is_granted_anywhere(flags("SELECT"), &["secret", "t"]));
        assert!(!rights.is_granted_anywhere(flags("SELECT"), &["secret", "u"]));
        let elements = rights.elements();
        assert_eq!(elements.len(), 3, "{elements:?}");
        assert!(elements[0].grant_option && elements[0].database.is_none());
        assert!(elements[1].is_partial_revoke);
        assert_eq!(elements[2].columns, vec!["a".to_string()]);
    }

    #[test]
    fn revoking_everything_leaves_an_empty_tree() {
        let mut rights = AccessRights::default();
        rights.grant(flags("SELECT") | flags("INSERT"), &["db", "t"], false);
        rights.revoke(flags("ALL"), &["db"], false);
        assert!(rights.is_empty());
        let mut rights = AccessRights::default();
        rights.grant(flags("SELECT"), &["db", "t", "a"], false);
        rights.grant(flags("SELECT"), &["db", "t", "b"], false);
        let elements = rights.elements();
        assert_eq!(elements.len(), 1);
        assert_eq!(elements[0].columns, vec!["a".to_string(), "b".to_string()]);
    }

    #[test]
    fn union_of_user_and_role() {
        let mut user = AccessRights::default();
        user.grant(flags("SELECT"), &["a"], false);
        let mut role = AccessRights::default();
        role.grant(flags("INSERT"), &[], false);
        role.revoke(flags("INSERT"), &["a", "t"], false);
        let both = user.union(&role);
        assert!(both.is_granted(flags("SELECT") | flags("INSERT"), &["a", "u"]));
        assert!(!both.is_granted(flags("INSERT"), &["a", "t"]));
        assert!(both.is_granted(flags("INSERT"), &["b", "t"]));
        assert!(AccessRights::full().is_granted(catalog().all(), &["x", "y", "z"]));
    }
}
