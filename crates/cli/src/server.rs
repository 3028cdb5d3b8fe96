//! `strata server`: the HTTP interface on a data path, until SIGTERM or Ctrl-C.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use strata_common::StrataError;
use strata_common::settings::Scope;
use strata_engine::Engine;
use strata_engine::data_path::DataPath;
use strata_engine::instance::ReloadedConfig;
use strata_server::{Server, ServerConfig};

#[derive(Args, Clone)]
pub struct ServerArgs {
    /// ClickHouse's configuration file, XML or YAML.
    #[arg(long = "config-file", short = 'C', visible_alias = "config")]
    config_file: Option<PathBuf>,
    /// The HTTP port; overrides the file's http_port.
    #[arg(long = "http-port", visible_alias = "http_port")]
    http_port: Option<u16>,
    /// An address to listen on; overrides the file's listen_host.
    #[arg(long = "listen-host", visible_alias = "listen_host")]
    listen_host: Vec<String>,
    /// The data directory; overrides the file's path.
    #[arg(long = "path")]
    path: Option<PathBuf>,
}

pub fn run(args: ServerArgs, settings: Vec<(String, String)>) -> ExitCode {
    crate::run_command(run_async(args, settings))
}

fn configuration(
    args: &ServerArgs,
    settings: &[(String, String)],
) -> strata_common::Result<ServerConfig> {
    let mut config = match &args.config_file {
        Some(file) => ServerConfig::load(file)?,
        None => ServerConfig::default(),
    };
    if let Some(port) = args.http_port {
        config.http_port = port;
    }
    if !args.listen_host.is_empty() {
        config.listen_hosts = args.listen_host.clone();
    }
    if let Some(path) = &args.path {
        config.path = path.clone();
    }
    for (name, value) in settings {
        if Scope::Server.find(name).is_none() {
            return Err(StrataError::new(
                strata_common::ErrorCode::UNKNOWN_SETTING,
                format!("Unknown server setting '{name}'"),
            ));
        }
        config.server_settings.set(name, value)?;
    }
    Ok(config)
}

async fn run_async(args: ServerArgs, settings: Vec<(String, String)>) -> strata_common::Result<()> {
    let config = configuration(&args, &settings)?;
    let data_path = DataPath::open(&config.path)?;
    let engine = Engine::open_with_storage(config.engine_settings()?, data_path, &config.storage)?;
    let (reload_args, reload_settings) = (args.clone(), settings.clone());
    engine.instance().set_config_source(Box::new(move || {
        let config = configuration(&reload_args, &reload_settings)?;
        Ok(ReloadedConfig {
            settings: config.engine_settings()?,
            storage: config.storage,
        })
    }));
    engine.load_tables().await?;
    let listeners = strata_server::bind(&config).await?;
    for listener in &listeners {
        if let Ok(address) = listener.local_addr() {
            log::info!("Listening for HTTP on http://{address}");
        }
    }
    log::info!("Data path: {}", config.path.display());
    let server = Server::new(engine, &config);
    strata_server::serve(server, listeners, shutdown_signal()).await;
    log::info!("Stopped.");
    Ok(())
}

/// SIGTERM or Ctrl-C.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
