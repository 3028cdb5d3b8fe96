//! ClickHouse's privileges (`privileges.tsv`, from its `system.privileges`):
//! names, aliases, the deepest level each applies to and the group each
//! belongs to. A set of privileges is an [`AccessFlags`] bit set with one
//! bit per privilege; a group's flags hold its own bit and all its members'.

use std::sync::OnceLock;

use strata_common::{ErrorCode, Result, StrataError};

const CATALOG: &str = include_str!("privileges.tsv");
/// Bits in an [`AccessFlags`]; the catalog must fit.
const FLAG_BITS: usize = 256;

/// How deep in the object tree a grant sits: `*.*`, `db.*`, `db.table`,
/// `db.table(column)`. Ordered from the root down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Depth {
    Global = 0,
    Database = 1,
    Table = 2,
    Column = 3,
}

impl Depth {
    pub fn below(self) -> Option<Depth> {
        match self {
            Depth::Global => Some(Depth::Database),
            Depth::Database => Some(Depth::Table),
            Depth::Table => Some(Depth::Column),
            Depth::Column => None,
        }
    }

    pub fn of_path(len: usize) -> Depth {
        match len {
            0 => Depth::Global,
            1 => Depth::Database,
            2 => Depth::Table,
            _ => Depth::Column,
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AccessFlags([u64; FLAG_BITS / 64]);

impl AccessFlags {
    pub const NONE: AccessFlags = AccessFlags([0; FLAG_BITS / 64]);

    fn bit(index: usize) -> AccessFlags {
        assert!(index < FLAG_BITS, "privilege {index} past the flag bits");
        let mut flags = AccessFlags::NONE;
        flags.0[index / 64] = 1 << (index % 64);
        flags
    }

    pub fn is_empty(self) -> bool {
        self.0.iter().all(|word| *word == 0)
    }

    pub fn contains(self, other: AccessFlags) -> bool {
        other - self == AccessFlags::NONE
    }

    pub fn intersects(self, other: AccessFlags) -> bool {
        !(self & other).is_empty()
    }
}

macro_rules! bitwise {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $op:expr) => {
        impl std::ops::$trait for AccessFlags {
            type Output = AccessFlags;
            fn $method(self, other: AccessFlags) -> AccessFlags {
                let mut out = self;
                for (word, theirs) in out.0.iter_mut().zip(other.0) {
                    *word = $op(*word, theirs);
                }
                out
            }
        }
        impl std::ops::$assign for AccessFlags {
            fn $assign_method(&mut self, other: AccessFlags) {
                *self = std::ops::$trait::$method(*self, other);
            }
        }
    };
}

bitwise!(BitOr, bitor, BitOrAssign, bitor_assign, |a: u64, b: u64| a
    | b);
bitwise!(
    BitAnd,
    bitand,
    BitAndAssign,
    bitand_assign,
    |a: u64, b: u64| a & b
);
bitwise!(Sub, sub, SubAssign, sub_assign, |a: u64, b: u64| a & !b);

/// One privilege of the catalog.
#[derive(Debug)]
pub struct Privilege {
    pub name: &'static str,
    pub aliases: Vec<&'static str>,
    /// ClickHouse's level name (`GLOBAL`, `DATABASE`, `TABLE`, `COLUMN`, ...);
    /// empty for a group.
    pub level: &'static str,
    pub parent: Option<&'static str>,
    /// Its own bit and those of every member, for a group.
    pub flags: AccessFlags,
    /// Members, in catalog order.
    children: Vec<usize>,
}

impl Privilege {
    /// The deepest level it can be granted on; None for a group (its
    /// members say).
    fn deepest(&self) -> Option<Depth> {
        Some(match self.level {
            "" => return None,
            "DATABASE" => Depth::Database,
            "TABLE" | "VIEW" | "DICTIONARY" => Depth::Table,
            "COLUMN" => Depth::Column,
            // GLOBAL, and the levels Strata grants only on `*.*`
            // (USER_NAME, SOURCE, NAMED_COLLECTION, DEFINER, TABLE_ENGINE).
            _ => Depth::Global,
        })
    }
}

pub struct Catalog {
    privileges: Vec<Privilege>,
    all: usize,
    /// The privileges that can be granted at each depth.
    applicable: [AccessFlags; 4],
}

pub fn catalog() -> &'static Catalog {
    static CATALOG_CELL: OnceLock<Catalog> = OnceLock::new();
    CATALOG_CELL.get_or_init(Catalog::load)
}

impl Catalog {
    fn load() -> Catalog {
        let mut privileges: Vec<Privilege> = CATALOG
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .enumerate()
            .map(|(index, line)| {
                let fields: Vec<&'static str> = line.split('\t').collect();
                assert_eq!(fields.len(), 4, "privileges.tsv line {line:?}");
                Privilege {
                    name: fields[0],
                    aliases: fields[1].split(',').filter(|a| !a.is_empty()).collect(),
                    level: fields[2],
                    parent: Some(fields[3]).filter(|p| !p.is_empty()),
                    flags: AccessFlags::bit(index),
                    children: Vec::new(),
                }
            })
            .collect();
        let index_of = |name: &str, privileges: &[Privilege]| {
            privileges
                .iter()
                .position(|p| p.name == name)
                .unwrap_or_else(|| panic!("privilege group {name} missing"))
        };
        for child in 0..privileges.len() {
            if let Some(parent) = privileges[child].parent {
                let parent = index_of(parent, &privileges);
                privileges[parent].children.push(child);
            }
        }
        let all = index_of("ALL", &privileges);
        let mut catalog = Catalog {
            privileges,
            all,
            applicable: [AccessFlags::NONE; 4],
        };
        catalog.fill_flags(all);
        for depth in [Depth::Global, Depth::Database, Depth::Table, Depth::Column] {
            catalog.applicable[depth as usize] = catalog
                .privileges
                .iter()
                .filter(|p| p.deepest().is_some_and(|deepest| deepest >= depth))
                .fold(AccessFlags::NONE, |acc, p| acc | p.flags);
        }
        catalog
    }

    /// A group's flags are its own bit and its members' flags.
    fn fill_flags(&mut self, index: usize) -> AccessFlags {
        let children = self.privileges[index].children.clone();
        let mut flags = self.privileges[index].flags;
        for child in children {
            flags |= self.fill_flags(child);
        }
        self.privileges[index].flags = flags;
        flags
    }

    pub fn all(&self) -> AccessFlags {
        self.privileges[self.all].flags
    }

    pub fn privileges(&self) -> &[Privilege] {
        &self.privileges
    }

    /// The privilege named `name` (any case, aliases too).
    pub fn find(&self, name: &str) -> Option<&Privilege> {
        self.privileges.iter().find(|p| {
            p.name.eq_ignore_ascii_case(name)
                || p.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
        })
    }

    /// Flags of the privilege named `name`; the privilege must exist.
    pub fn flags(&self, name: &str) -> AccessFlags {
        self.find(name)
            .unwrap_or_else(|| panic!("unknown privilege {name}"))
            .flags
    }

    /// What can be granted at `depth`: privileges whose level is that deep
    /// or deeper.
    pub fn applicable(&self, depth: Depth) -> AccessFlags {
        self.applicable[depth as usize]
    }

    /// The privileges `name` grants at `depth`: a group grants those of its
    /// members that apply there, a single privilege that cannot apply there
    /// is an error.
    pub fn grantable(&self, name: &str, depth: Depth) -> Result<AccessFlags> {
        let privilege = self.find(name).ok_or_else(|| {
            StrataError::new(
                ErrorCode::SYNTAX_ERROR,
                format!("Unknown access type: {name}"),
            )
        })?;
        if privilege.name == "NONE" {
            return Ok(AccessFlags::NONE);
        }
        let flags = privilege.flags & self.applicable(depth);
        if privilege.deepest().is_some() && flags.is_empty() {
            return Err(StrataError::new(
                ErrorCode::INVALID_GRANT,
                format!(
                    "{} cannot be granted on the {} level",
                    privilege.name,
                    depth_name(depth)
                ),
            ));
        }
        Ok(flags)
    }

    /// The fewest names that cover `flags` at `depth`: a group whose
    /// members there are all present is named instead of them.
    pub fn names(&self, flags: AccessFlags, depth: Depth) -> Vec<&'static str> {
        let mut names = Vec::new();
        self.cover(self.all, flags, self.applicable(depth), &mut names);
        names
    }

    fn cover(
        &self,
        index: usize,
        flags: AccessFlags,
        applicable: AccessFlags,
        names: &mut Vec<&'static str>,
    ) {
        let privilege = &self.privileges[index];
        let full = privilege.flags & applicable;
        if full.is_empty() || !flags.intersects(full) {
            return;
        }
        if flags.contains(full) {
            names.push(privilege.name);
            return;
        }
        for &child in &privilege.children {
            self.cover(child, flags, applicable, names);
        }
    }
}

fn depth_name(depth: Depth) -> &'static str {
    match depth {
        Depth::Global => "global",
        Depth::Database => "database",
        Depth::Table => "table",
        Depth::Column => "column",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_hold_their_members() {
        let catalog = catalog();
        assert!(catalog.privileges().len() < FLAG_BITS);
        let alter = catalog.flags("ALTER");
        assert!(alter.contains(catalog.flags("ALTER UPDATE")));
        assert!(alter.contains(catalog.flags("alter add column")));
        assert!(catalog.all().contains(alter));
        assert_eq!(catalog.find("DELETE").unwrap().name, "ALTER DELETE");
        assert!(catalog.find("NO SUCH").is_none());
    }

    #[test]
    fn depth_limits_what_applies() {
        let catalog = catalog();
        let on_table = catalog.grantable("ALL", Depth::Table).unwrap();
        assert!(on_table.contains(catalog.flags("SELECT")));
        assert!(!on_table.intersects(catalog.flags("CREATE USER")));
        assert!(!on_table.intersects(catalog.flags("CREATE DATABASE")));
        let error = catalog
            .grantable("CREATE USER", Depth::Database)
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_GRANT);
        assert_eq!(catalog.names(on_table, Depth::Table), vec!["ALL"]);
        assert_eq!(catalog.names(catalog.all(), Depth::Global), vec!["ALL"]);
    }

    #[test]
    fn names_cover_with_the_fewest_groups() {
        let catalog = catalog();
        let flags = catalog.flags("SELECT") | catalog.flags("INSERT");
        assert_eq!(
            catalog.names(flags, Depth::Global),
            vec!["SELECT", "INSERT"]
        );
        let alter_table = catalog.flags("ALTER TABLE");
        let mixed = alter_table - catalog.flags("ALTER DELETE");
        let names = catalog.names(mixed, Depth::Table);
        assert!(names.contains(&"ALTER UPDATE") && names.contains(&"ALTER COLUMN"));
        assert!(!names.contains(&"ALTER DELETE") && !names.contains(&"ALTER TABLE"));
    }
}
