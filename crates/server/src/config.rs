//! The server's configuration file, in ClickHouse's XML form or its YAML
//! form: `http_port`, `listen_host`, `path`, server settings such as
//! `max_server_memory_usage`, and `users` with their `profiles`, inline or in
//! the file `users_config` names (`users.xml` beside the file by default),
//! and `storage_configuration` (disks and storage policies).
//!
//! Both forms are read into one tree of [`Node`]s first, so every key is
//! looked up once whatever the syntax.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use strata_common::settings::{Scope, Settings};
use strata_common::{ErrorCode, Result, StrataError};

use strata_storage::disk::config::DEFAULT_MOVE_FACTOR;
use strata_storage::disk::{DiskConfig, PolicyConfig, StorageConfiguration, VolumeConfig};

use strata_common::settings::constraints::Writability;
use strata_engine::access::ConfigUser;
use strata_engine::access::authentication::{Authentication, Hosts, parse_network};
use strata_engine::access::settings_profiles::check_setting_element;
use strata_sql::access::settings_profile::{SettingElement, SettingsElement};

pub const DEFAULT_HTTP_PORT: u16 = 8123;
pub const DEFAULT_LISTEN_HOST: &str = "127.0.0.1";
pub const DEFAULT_PATH: &str = "./strata-data";

/// One element of a configuration file: an XML element or a YAML key.
#[derive(Debug, Default, Clone)]
pub struct Node {
    pub name: String,
    /// The element's text, for an element without children.
    pub text: String,
    pub children: Vec<Node>,
}

impl Node {
    pub fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> {
        self.children.iter().filter(move |c| c.name == name)
    }

    fn text_of(&self, name: &str) -> Option<&str> {
        self.child(name).map(|c| c.text.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub http_port: u16,
    pub listen_hosts: Vec<String>,
    pub path: PathBuf,
    /// Settings of the whole process (`max_server_memory_usage`, `tmp_path`,
    /// `max_concurrent_queries`, ...), from top-level keys of the file.
    pub server_settings: Settings,
    pub users: Vec<ConfigUser>,
    /// Each profile's settings, inherited ones first.
    pub profiles: BTreeMap<String, Vec<SettingsElement>>,
    /// Disks and storage policies besides the default disk.
    pub storage: StorageConfiguration,
}

impl Default for ServerConfig {
    /// The configuration without a file: loopback, port 8123, data under
    /// `./strata-data`, and a `default` user without a password.
    fn default() -> Self {
        ServerConfig {
            http_port: DEFAULT_HTTP_PORT,
            listen_hosts: vec![DEFAULT_LISTEN_HOST.to_string()],
            path: PathBuf::from(DEFAULT_PATH),
            server_settings: Settings::server(),
            users: vec![ConfigUser::open_default()],
            profiles: BTreeMap::new(),
            storage: StorageConfiguration::default(),
        }
    }
}

fn config_error(message: impl Into<String>) -> StrataError {
    StrataError::new(ErrorCode::CANNOT_LOAD_CONFIG, message)
}

impl ServerConfig {
    /// The server settings the engine of a server runs with: those of the
    /// file, with `user_files_path` made `user_files/` under the data path
    /// where the file leaves it empty, so `file()` reads only there.
    pub fn engine_settings(&self) -> Result<Settings> {
        let mut settings = self.server_settings.clone();
        if settings.user_files_path().is_empty() {
            let user_files = self.path.join("user_files");
            settings.set("user_files_path", &user_files.to_string_lossy())?;
        }
        Ok(settings)
    }

    /// Reads `file` (XML, or YAML by its `.yaml`/`.yml` extension).
    pub fn load(file: &Path) -> Result<ServerConfig> {
        let root = read_tree(file)?;
        let mut config = ServerConfig::default();
        let base = file.parent().unwrap_or(Path::new("."));
        config.apply(&root, base)?;
        Ok(config)
    }

    fn apply(&mut self, root: &Node, base: &Path) -> Result<()> {
        if let Some(port) = root.text_of("http_port") {
            self.http_port = port.trim().parse().map_err(|_| {
                config_error(format!("http_port must be a port number, got '{port}'"))
            })?;
        }
        let hosts: Vec<String> = root
            .children_named("listen_host")
            .map(|n| n.text.trim().to_string())
            .filter(|h| !h.is_empty())
            .collect();
        if !hosts.is_empty() {
            self.listen_hosts = hosts;
        }
        if let Some(path) = root.text_of("path") {
            self.path = base.join(path.trim());
        }
        for node in &root.children {
            if Scope::Server.find(&node.name).is_some() {
                self.server_settings.set(&node.name, node.text.trim())?;
            }
        }
        if let Some(storage) = root.child("storage_configuration") {
            self.storage = storage_configuration(storage)?;
        }
        let users_file = root
            .text_of("users_config")
            .map(|f| base.join(f.trim()))
            .or_else(|| {
                ["users.xml", "users.yaml", "users.yml"]
                    .iter()
                    .map(|name| base.join(name))
                    .find(|p| p.is_file())
            });
        let users_root = match users_file {
            Some(file) => Some(read_tree(&file)?),
            None => None,
        };
        for source in std::iter::once(root).chain(users_root.as_ref()) {
            if let Some(profiles) = source.child("profiles") {
                self.read_profiles(profiles)?;
            }
            if let Some(users) = source.child("users") {
                self.read_users(users)?;
            }
        }
        Ok(())
    }

    fn read_users(&mut self, users: &Node) -> Result<()> {
        let mut read = Vec::new();
        for user in &users.children {
            read.push(user_config(user)?);
        }
        if !read.is_empty() {
            self.users = read;
        }
        Ok(())
    }

    fn read_profiles(&mut self, profiles: &Node) -> Result<()> {
        let by_name: BTreeMap<&str, &Node> = profiles
            .children
            .iter()
            .map(|p| (p.name.as_str(), p))
            .collect();
        let mut read = BTreeMap::new();
        for (name, node) in &by_name {
            read.insert(name.to_string(), profile_elements(node)?);
        }
        check_profiles(&read)?;
        self.profiles = read;
        Ok(())
    }
}

/// `<storage_configuration>`: `<disks>` and `<policies>` by name.
fn storage_configuration(node: &Node) -> Result<StorageConfiguration> {
    let mut storage = StorageConfiguration::default();
    for disk in node.child("disks").map_or(&[][..], |d| &d.children[..]) {
        storage.disks.push(disk_config(disk)?);
    }
    for policy in node.child("policies").map_or(&[][..], |p| &p.children[..]) {
        storage.policies.push(policy_config(policy)?);
    }
    Ok(storage)
}

fn disk_config(disk: &Node) -> Result<DiskConfig> {
    let text = |name: &str| disk.text_of(name).map(|t| t.trim().to_string());
    strata_storage::disk::config::disk_config(&disk.name, &text).map_err(config_error)
}

fn policy_config(policy: &Node) -> Result<PolicyConfig> {
    let mut volumes = Vec::new();
    for volume in policy.child("volumes").map_or(&[][..], |v| &v.children[..]) {
        let size = volume.text_of("max_data_part_size_bytes").map(str::trim);
        volumes.push(VolumeConfig {
            name: volume.name.clone(),
            disks: volume
                .children_named("disk")
                .map(|d| d.text.trim().to_string())
                .collect(),
            max_data_part_size_bytes: match size {
                Some(bytes) => bytes.parse().map_err(|_| {
                    config_error(format!(
                        "max_data_part_size_bytes of volume {} must be a number, got '{bytes}'",
                        volume.name
                    ))
                })?,
                None => 0,
            },
            prefer_not_to_merge: matches!(
                volume.text_of("prefer_not_to_merge").map(str::trim),
                Some("1" | "true")
            ),
        });
    }
    let move_factor = match policy.text_of("move_factor").map(str::trim) {
        Some(factor) => factor.parse().map_err(|_| {
            config_error(format!(
                "move_factor of policy {} must be a number, got '{factor}'",
                policy.name
            ))
        })?,
        None => DEFAULT_MOVE_FACTOR,
    };
    Ok(PolicyConfig {
        name: policy.name.clone(),
        volumes,
        move_factor,
    })
}

/// Profiles inherit through `<profile>parent</profile>`; a chain deeper is a cycle.
const MAX_PROFILE_DEPTH: usize = 16;

/// Every setting known with values of its type, every inherited profile
/// there, and no profile inheriting itself.
fn check_profiles(profiles: &BTreeMap<String, Vec<SettingsElement>>) -> Result<()> {
    fn walk(
        profiles: &BTreeMap<String, Vec<SettingsElement>>,
        name: &str,
        depth: usize,
    ) -> Result<()> {
        if depth > MAX_PROFILE_DEPTH {
            return Err(config_error(format!("Profile {name} inherits in a cycle")));
        }
        let elements = profiles.get(name).ok_or_else(|| {
            config_error(format!(
                "There is no profile '{name}' in configuration file"
            ))
        })?;
        for element in elements {
            match element {
                SettingsElement::Profile(parent) => walk(profiles, parent, depth + 1)?,
                SettingsElement::Setting(setting) => check_setting_element(setting)?,
            }
        }
        Ok(())
    }
    profiles.keys().try_for_each(|name| walk(profiles, name, 0))
}

/// A profile's settings (`<max_threads>2</max_threads>`), the profiles it
/// inherits (`<profile>parent</profile>`) and its constraints
/// (`<constraints><max_threads><min>1</min><max>4</max></max_threads>`, or
/// `<readonly/>`, `<const/>`, `<changeable_in_readonly/>`).
fn profile_elements(profile: &Node) -> Result<Vec<SettingsElement>> {
    let mut elements = Vec::new();
    for child in &profile.children {
        match child.name.as_str() {
            "profile" => elements.push(SettingsElement::Profile(child.text.trim().to_string())),
            "constraints" => {
                for setting in &child.children {
                    elements.push(SettingsElement::Setting(constraint_element(setting)?));
                }
            }
            name => elements.push(SettingsElement::Setting(SettingElement {
                name: name.to_string(),
                value: Some(child.text.trim().to_string()),
                ..SettingElement::default()
            })),
        }
    }
    Ok(elements)
}

fn constraint_element(setting: &Node) -> Result<SettingElement> {
    let mut element = SettingElement {
        name: setting.name.clone(),
        min: setting.text_of("min").map(|v| v.trim().to_string()),
        max: setting.text_of("max").map(|v| v.trim().to_string()),
        ..SettingElement::default()
    };
    for flag in &setting.children {
        if let Some(writability) = Writability::from_name(&flag.name) {
            element.writability = Some(writability);
        } else if flag.name != "min" && flag.name != "max" {
            return Err(config_error(format!(
                "Setting {} has an unknown constraint <{}>",
                setting.name, flag.name
            )));
        }
    }
    Ok(element)
}

fn user_config(user: &Node) -> Result<ConfigUser> {
    let password = match (
        user.text_of("password"),
        user.text_of("password_sha256_hex"),
    ) {
        (Some(_), Some(_)) => {
            return Err(config_error(format!(
                "More than one password is given for user {}",
                user.name
            )));
        }
        (Some(plain), None) if !plain.is_empty() => Authentication::Plaintext(plain.to_string()),
        (None, Some(hex)) => Authentication::sha256_hex(hex.trim(), "").ok_or_else(|| {
            config_error(format!(
                "password_sha256_hex of user {} is not 64 hex digits",
                user.name
            ))
        })?,
        _ => Authentication::NoPassword,
    };
    let mut networks = Vec::new();
    if let Some(node) = user.child("networks") {
        for ip in node.children_named("ip") {
            networks.push(parse_network(ip.text.trim()).map_err(|e| config_error(e.message))?);
        }
    }
    let hosts = if networks.is_empty() {
        Hosts::Any
    } else {
        Hosts::Networks(networks)
    };
    let access_management = match user.text_of("access_management").map(str::trim) {
        None | Some("0") | Some("false") => false,
        Some("1") | Some("true") => true,
        Some(other) => {
            return Err(config_error(format!(
                "access_management of user {} must be 0 or 1, not '{other}'",
                user.name
            )));
        }
    };
    Ok(ConfigUser {
        name: user.name.clone(),
        authentication: password,
        hosts,
        access_management,
        profile: user
            .text_of("profile")
            .unwrap_or("default")
            .trim()
            .to_string(),
    })
}

fn read_tree(file: &Path) -> Result<Node> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| config_error(format!("Cannot read config file {}: {e}", file.display())))?;
    let yaml = matches!(
        file.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    );
    let parsed = if yaml {
        yaml_tree(&text)
    } else {
        xml_tree(&text)
    };
    parsed.map_err(|e| config_error(format!("Cannot parse config file {}: {e}", file.display())))
}

fn xml_tree(text: &str) -> std::result::Result<Node, String> {
    let document = roxmltree::Document::parse(text).map_err(|e| e.to_string())?;
    Ok(xml_node(document.root_element()))
}

fn xml_node(element: roxmltree::Node) -> Node {
    let children: Vec<Node> = element
        .children()
        .filter(|c| c.is_element())
        .map(xml_node)
        .collect();
    let text = if children.is_empty() {
        element.text().unwrap_or("").to_string()
    } else {
        String::new()
    };
    Node {
        name: element.tag_name().name().to_string(),
        text,
        children,
    }
}

fn yaml_tree(text: &str) -> std::result::Result<Node, String> {
    use yaml_rust2::YamlLoader;
    let documents = YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    let mut root = Node {
        name: "clickhouse".to_string(),
        ..Node::default()
    };
    if let Some(document) = documents.first() {
        root.children = yaml_children(document);
    }
    Ok(root)
}

/// The children of a YAML mapping; a sequence value repeats its key, as
/// repeated XML elements do (`listen_host: [a, b]`).
fn yaml_children(value: &yaml_rust2::Yaml) -> Vec<Node> {
    use yaml_rust2::Yaml;
    let Yaml::Hash(map) = value else {
        return Vec::new();
    };
    let mut nodes = Vec::new();
    for (key, value) in map {
        let Some(name) = yaml_scalar(key) else {
            continue;
        };
        // `@attribute` keys carry XML attributes Strata does not use.
        if name.starts_with('@') {
            continue;
        }
        match value {
            Yaml::Array(items) => nodes.extend(items.iter().map(|item| yaml_node(&name, item))),
            other => nodes.push(yaml_node(&name, other)),
        }
    }
    nodes
}

fn yaml_node(name: &str, value: &yaml_rust2::Yaml) -> Node {
    Node {
        name: name.to_string(),
        text: yaml_scalar(value).unwrap_or_default(),
        children: yaml_children(value),
    }
}

fn yaml_scalar(value: &yaml_rust2::Yaml) -> Option<String> {
    use yaml_rust2::Yaml;
    Some(match value {
        Yaml::String(s) | Yaml::Real(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        Yaml::Boolean(b) => u8::from(*b).to_string(),
        Yaml::Null => String::new(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn xml_and_yaml_give_the_same_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let xml = write(
            dir.path(),
            "config.xml",
            "<clickhouse><http_port>9123</http_port><listen_host>::1</listen_host>\
             <listen_host>127.0.0.1</listen_host><path>data</path>\
             <max_concurrent_queries>5</max_concurrent_queries>\
             <profiles><default><max_threads>2</max_threads><constraints><max_threads>\
             <min>1</min><max>4</max></max_threads><max_block_size><const/></max_block_size>\
             </constraints></default>\
             <ro><profile>default</profile><readonly>1</readonly></ro></profiles>\
             <users><alice><password>secret</password><profile>ro</profile>\
             <networks><ip>127.0.0.1</ip></networks></alice></users></clickhouse>",
        );
        let yaml = write(
            dir.path(),
            "config.yaml",
            "http_port: 9123\nlisten_host: ['::1', 127.0.0.1]\npath: data\n\
             max_concurrent_queries: 5\nprofiles:\n  default:\n    max_threads: 2\n    \
             constraints:\n      max_threads:\n        min: 1\n        max: 4\n      \
             max_block_size:\n        const:\n  ro:\n    \
             profile: default\n    readonly: 1\nusers:\n  alice:\n    password: secret\n    \
             profile: ro\n    networks:\n      ip: 127.0.0.1\n",
        );
        for file in [xml, yaml] {
            let config = ServerConfig::load(&file).unwrap();
            assert_eq!(config.http_port, 9123);
            assert_eq!(config.listen_hosts, vec!["::1", "127.0.0.1"]);
            assert_eq!(config.path, dir.path().join("data"));
            assert_eq!(config.server_settings.max_concurrent_queries(), 5);
            let setting = |name: &str, value: Option<&str>| SettingElement {
                name: name.to_string(),
                value: value.map(str::to_string),
                ..SettingElement::default()
            };
            assert_eq!(
                config.profiles["ro"],
                vec![
                    SettingsElement::Profile("default".to_string()),
                    SettingsElement::Setting(setting("readonly", Some("1"))),
                ]
            );
            assert_eq!(
                config.profiles["default"],
                vec![
                    SettingsElement::Setting(setting("max_threads", Some("2"))),
                    SettingsElement::Setting(SettingElement {
                        min: Some("1".to_string()),
                        max: Some("4".to_string()),
                        ..setting("max_threads", None)
                    }),
                    SettingsElement::Setting(SettingElement {
                        writability: Some(Writability::Const),
                        ..setting("max_block_size", None)
                    }),
                ]
            );
            assert_eq!(config.users.len(), 1);
            assert_eq!(config.users[0].name, "alice");
            assert_eq!(config.users[0].profile, "ro");
            assert!(
                matches!(config.users[0].authentication, Authentication::Plaintext(ref p) if p == "secret")
            );
        }
    }

    #[test]
    fn storage_configuration_reads_s3_and_cache_disks() {
        let dir = tempfile::tempdir().unwrap();
        let xml = write(
            dir.path(),
            "config.xml",
            "<clickhouse><storage_configuration><disks>\
             <s3disk><type>s3</type><endpoint>http://127.0.0.1:9000/b/data/</endpoint>\
             <access_key_id>k</access_key_id><secret_access_key>s</secret_access_key></s3disk>\
             <s3cache><type>cache</type><disk>s3disk</disk><path>s3cache</path>\
             <max_size>10Gi</max_size><cache_on_write_operations>1</cache_on_write_operations>\
             </s3cache></disks><policies><cached><volumes><main><disk>s3cache</disk></main>\
             </volumes></cached></policies></storage_configuration></clickhouse>",
        );
        let yaml = write(
            dir.path(),
            "config.yaml",
            "storage_configuration:\n  disks:\n    s3disk:\n      type: s3\n      \
             endpoint: http://127.0.0.1:9000/b/data/\n      access_key_id: k\n      \
             secret_access_key: s\n    s3cache:\n      type: cache\n      disk: s3disk\n      \
             path: s3cache\n      max_size: 10Gi\n      cache_on_write_operations: 1\n  \
             policies:\n    cached:\n      volumes:\n        main:\n          disk: s3cache\n",
        );
        for file in [xml, yaml] {
            let storage = ServerConfig::load(&file).unwrap().storage;
            assert_eq!(storage.disks.len(), 2);
            let strata_storage::disk::DiskType::Cache(cache) = &storage.disks[1].kind else {
                panic!("{:?}", storage.disks[1]);
            };
            assert_eq!(cache.disk, "s3disk");
            assert_eq!(cache.path, PathBuf::from("s3cache"));
            assert_eq!(cache.max_size, 10 << 30);
            assert_eq!(
                cache.boundary_alignment,
                strata_storage::disk::file_cache::DEFAULT_BOUNDARY_ALIGNMENT
            );
            assert!(cache.cache_on_write_operations);
            assert_eq!(storage.policies[0].volumes[0].disks, ["s3cache"]);
        }
        let file = write(
            dir.path(),
            "no_size.xml",
            "<clickhouse><storage_configuration><disks><c><type>cache</type><disk>d</disk>\
             <path>p</path><max_size>lots</max_size></c></disks></storage_configuration></clickhouse>",
        );
        let error = ServerConfig::load(&file).unwrap_err();
        assert!(error.message.contains("max_size of disk c"), "{error}");
    }

    #[test]
    fn bad_values_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = write(
            dir.path(),
            "config.xml",
            "<clickhouse><max_server_memory_usage>lots</max_server_memory_usage></clickhouse>",
        );
        assert!(ServerConfig::load(&file).is_err());
        let file = write(dir.path(), "broken.xml", "<clickhouse><http_port>");
        let error = ServerConfig::load(&file).unwrap_err();
        assert_eq!(error.code, ErrorCode::CANNOT_LOAD_CONFIG);
    }
}
