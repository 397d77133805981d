//! The `http` job type: fetch one URL with a GET and return the body.
//!
//! The job names a URL (input format in the crate documentation); the runner fetches it and posts
//! the body bytes. Unlike `wasm`, the result depends on a server the chain cannot see, so two
//! honest runners agree only if the server answers them the same — which is the submitter's
//! choice of URL and verification mode. What this module keeps deterministic is everything that
//! depends on the job alone: a URL that does not parse, a scheme other than `http` or `https`, or
//! a body above `max_output_bytes` fails the same way everywhere and is posted as such.
//!
//! Everything that depends on this runner or this moment is transient and posts nothing: a host
//! that is not on this runner's allowlist (the allowlist is the operator's policy, another runner
//! may allow it), connection failures, the total timeout, and any status other than 2xx (a 404 or
//! a 503 may be gone on the next try, and an error page is not the resource the job asked for).
//!
//! The runner only ever connects where its operator said: the URL's host, or host and port, must
//! match an allowlist entry (`"host"` allows every port of that host, `"host:port"` that port
//! only; IPv6 addresses in brackets). Hosts are compared after the URL standard's normalisation
//! on both sides, so `127.1` and `127.0.0.1` are one host and names are case-insensitive. To keep
//! that promise, redirects are not followed (a 3xx is a non-2xx answer) and no proxy from the
//! environment is used. An allowlisted name still resolves through the runner's DNS, so an
//! operator allows only names they trust. The body is read chunk by chunk and the fetch stops
//! as soon as it passes the output limit, so a huge or endless body costs at most that much
//! memory, and the whole exchange (connect, headers, body) has one deadline.

use crate::{ConfigError, ExecutorError, quoted};
use drover_types::args::{Args, ArgsError};
use reqwest::{Client, Url, redirect};
use std::time::Duration;

/// The keys of an `http` job's input map.
const INPUT_KEYS: &[&str] = &["url"];

/// A host, or a host and port, this runner fetches from.
#[derive(Clone, Debug, PartialEq, Eq)]
struct AllowEntry {
    /// As the URL standard normalises it (lower case, IPv4 in dotted decimal, IPv6 in brackets).
    host: String,
    /// `None` allows every port.
    port: Option<u16>,
}

impl AllowEntry {
    fn parse(entry: &str) -> Result<Self, ConfigError> {
        let invalid = |reason| ConfigError::InvalidAllowEntry { entry: entry.to_owned(), reason };
        // An IPv6 address has colons of its own: a port follows only a closing bracket.
        let (host, port) = match entry.rsplit_once(':') {
            Some((host, port)) if !entry.ends_with(']') && (!host.contains(':') || host.ends_with(']')) => {
                (host, Some(port.parse::<u16>().map_err(|_| invalid("the port is not a number from 0 to 65535"))?))
            }
            _ => (entry, None),
        };
        let not_a_host = || invalid("not a host name or IP address (an IPv6 address goes in brackets)");
        if host.is_empty() || host.contains(['/', '@', '?', '#', '\\']) {
            return Err(not_a_host());
        }
        let url = Url::parse(&format!("http://{host}/")).map_err(|_| not_a_host())?;
        match url.host_str() {
            Some(normalised) if url.port().is_none() => Ok(AllowEntry { host: normalised.to_owned(), port }),
            _ => Err(not_a_host()),
        }
    }

    fn allows(&self, host: &str, port: u16) -> bool {
        self.host == host && self.port.is_none_or(|allowed| allowed == port)
    }
}

/// The executor of `http` jobs.
#[derive(Debug)]
pub(crate) struct HttpExecutor {
    client: Client,
    allow: Vec<AllowEntry>,
    timeout_ms: u64,
    max_output_bytes: usize,
}

impl HttpExecutor {
    /// An executor fetching only from `allow` (entries `"host"` or `"host:port"`), each fetch
    /// within `timeout_ms` milliseconds in all, bodies of at most `max_output_bytes`.
    pub(crate) fn new(allow: &[String], timeout_ms: u64, max_output_bytes: usize) -> Result<Self, ConfigError> {
        if timeout_ms == 0 {
            return Err(ConfigError::ZeroHttpTimeout);
        }
        let allow = allow.iter().map(|entry| AllowEntry::parse(entry)).collect::<Result<_, _>>()?;
        let client = Client::builder()
            .redirect(redirect::Policy::none())
            .no_proxy()
            .timeout(Duration::from_millis(timeout_ms))
            .user_agent(concat!("drover-runner/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ConfigError::HttpClient(e.to_string()))?;
        Ok(HttpExecutor { client, allow, timeout_ms, max_output_bytes })
    }

    /// Runs one job whose input is the canonical CBOR map `{"url": text}`.
    pub(crate) async fn run(&self, job_input: &[u8]) -> Result<Vec<u8>, ExecutorError> {
        let url = self.url(job_input)?;
        let failed = |e: reqwest::Error| {
            if e.is_timeout() {
                ExecutorError::Transient(format!("no complete answer within {} ms", self.timeout_ms))
            } else {
                ExecutorError::Transient(format!("fetch failed: {e}"))
            }
        };
        let mut response = self.client.get(url).send().await.map_err(failed)?;
        let status = response.status();
        if !status.is_success() {
            return Err(ExecutorError::Transient(format!("the server answered {status}")));
        }
        let too_large = || ExecutorError::Deterministic(format!("body larger than {} bytes", self.max_output_bytes));
        // A declared length is checked before anything is read, but it is only a hint: the
        // count below is what holds.
        if response.content_length().is_some_and(|len| len > self.max_output_bytes as u64) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if chunk.len() > self.max_output_bytes - body.len() {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// The job's URL, if it is one this runner fetches.
    fn url(&self, job_input: &[u8]) -> Result<Url, ExecutorError> {
        let args = Args::decode(job_input).map_err(bad_input)?;
        args.only(INPUT_KEYS).map_err(bad_input)?;
        let text = args.text("url").map_err(bad_input)?;
        let url = Url::parse(text)
            .map_err(|_| ExecutorError::Deterministic(format!("url {} does not parse", quoted(text))))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ExecutorError::Deterministic(format!(
                "url scheme {} is not http or https",
                quoted(url.scheme())
            )));
        }
        // Both are always present for http and https URLs, which the parser refuses without a
        // host; a missing one is still only this URL's problem.
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return Err(ExecutorError::Deterministic(format!("url {} has no host", quoted(text))));
        };
        if !self.allow.iter().any(|entry| entry.allows(host, port)) {
            return Err(ExecutorError::Transient(format!("host {host}:{port} is not allowed by this runner")));
        }
        Ok(url)
    }
}

/// A job input that is not the map this executor takes.
fn bad_input(e: ArgsError) -> ExecutorError {
    ExecutorError::Deterministic(match e {
        // The CBOR decoder's own words name library internals; the shape is what matters.
        ArgsError::Encoding(_) => "input is not a canonical CBOR map with text keys".to_owned(),
        ArgsError::Unknown { key, .. } => format!("input has an unknown key {}; an http job takes url", quoted(&key)),
        e @ (ArgsError::Missing(_) | ArgsError::Invalid { .. }) => format!("input: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::{Router, body::Body, response::Redirect, routing::get};
    use drover_types::args::ArgsBuilder;
    use std::convert::Infallible;
    use std::net::SocketAddr;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const MAX_OUTPUT_BYTES: usize = 1024;
    // Generous for a loopback GET on a busy machine, short enough to keep the timeout tests quick.
    const TIMEOUT_MS: u64 = 1_000;

    /// A server on 127.0.0.1 with a route per case, and how many requests it has had.
    async fn serve() -> (SocketAddr, Arc<AtomicUsize>) {
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&hits);
        let app = Router::new()
            .route("/hello", get(|| async { "hello" }))
            .route("/exact", get(|| async { vec![b'x'; MAX_OUTPUT_BYTES] }))
            .route("/big", get(|| async { vec![b'x'; MAX_OUTPUT_BYTES + 1] }))
            // No content-length: only counting the chunks can stop it.
            .route(
                "/endless",
                get(|| async {
                    let chunks = futures::stream::repeat_with(|| Ok::<_, Infallible>(vec![b'y'; 100]));
                    Body::from_stream(chunks)
                }),
            )
            .route(
                "/slow",
                get(|| async {
                    tokio::time::sleep(Duration::from_millis(TIMEOUT_MS * 10)).await;
                    "late"
                }),
            )
            // Headers at once, then a body that never ends in time.
            .route(
                "/trickle",
                get(|| async {
                    let chunks = futures::stream::unfold((), |()| async {
                        tokio::time::sleep(Duration::from_millis(TIMEOUT_MS / 4)).await;
                        Some((Ok::<_, Infallible>(vec![b'z']), ()))
                    });
                    Body::from_stream(chunks)
                }),
            )
            .route("/redirect", get(|| async { Redirect::temporary("/hello") }))
            .layer(axum::middleware::from_fn(move |request: axum::extract::Request, next: axum::middleware::Next| {
                counted.fetch_add(1, Ordering::SeqCst);
                async move { next.run(request).await }
            }));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("local address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        (addr, hits)
    }

    fn executor(allow: &[&str]) -> HttpExecutor {
        let allow: Vec<String> = allow.iter().map(|entry| (*entry).to_owned()).collect();
        HttpExecutor::new(&allow, TIMEOUT_MS, MAX_OUTPUT_BYTES).expect("valid configuration")
    }

    fn job(url: &str) -> Vec<u8> {
        ArgsBuilder::new().text("url", url).encode()
    }

    fn transient(result: Result<Vec<u8>, ExecutorError>) -> String {
        match result {
            Err(ExecutorError::Transient(text)) => text,
            other => panic!("expected a transient failure, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn fetches_from_an_allowed_host() {
        let (addr, _) = serve().await;
        let by_port = executor(&[&addr.to_string()]);
        assert_eq!(by_port.run(&job(&format!("http://{addr}/hello"))).await.unwrap(), b"hello");
        // A host entry without a port allows every port; the URL's host is normalised first.
        let any_port = executor(&["127.0.0.1"]);
        let url = format!("http://127.1:{}/hello", addr.port());
        assert_eq!(any_port.run(&job(&url)).await.unwrap(), b"hello");
        assert_eq!(any_port.run(&job(&format!("http://{addr}/exact"))).await.unwrap(), vec![b'x'; MAX_OUTPUT_BYTES]);
    }

    #[tokio::test]
    async fn refuses_hosts_off_the_allowlist_without_connecting() {
        let (addr, hits) = serve().await;
        let other_port = executor(&[&format!("127.0.0.1:{}", addr.port().wrapping_add(1))]);
        let text = transient(other_port.run(&job(&format!("http://{addr}/hello"))).await);
        assert_eq!(text, format!("host {addr} is not allowed by this runner"));
        let other_host = executor(&["127.0.0.2"]);
        assert!(matches!(
            other_host.run(&job(&format!("http://{addr}/hello"))).await,
            Err(ExecutorError::Transient(_))
        ));
        assert!(matches!(
            executor(&[]).run(&job(&format!("http://{addr}/hello"))).await,
            Err(ExecutorError::Transient(_))
        ));
        assert_eq!(hits.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn refuses_a_body_over_the_limit() {
        let (addr, _) = serve().await;
        let http = executor(&[&addr.to_string()]);
        let too_large = Err(ExecutorError::Deterministic("body larger than 1024 bytes".into()));
        assert_eq!(http.run(&job(&format!("http://{addr}/big"))).await, too_large);
        assert_eq!(http.run(&job(&format!("http://{addr}/endless"))).await, too_large);
    }

    #[tokio::test]
    async fn times_out_slow_servers() {
        let (addr, _) = serve().await;
        let http = executor(&[&addr.to_string()]);
        let expected = format!("no complete answer within {TIMEOUT_MS} ms");
        assert_eq!(transient(http.run(&job(&format!("http://{addr}/slow"))).await), expected);
        assert_eq!(transient(http.run(&job(&format!("http://{addr}/trickle"))).await), expected);
    }

    #[tokio::test]
    async fn non_2xx_answers_are_transient() {
        let (addr, _) = serve().await;
        let http = executor(&[&addr.to_string()]);
        assert_eq!(
            transient(http.run(&job(&format!("http://{addr}/missing"))).await),
            "the server answered 404 Not Found"
        );
        // Redirects are not followed: the target might be off the allowlist.
        assert_eq!(
            transient(http.run(&job(&format!("http://{addr}/redirect"))).await),
            "the server answered 307 Temporary Redirect"
        );
    }

    #[tokio::test]
    async fn connection_failures_are_transient() {
        // Bind and drop a listener: its port on 127.0.0.1 is then very likely closed.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let http = executor(&[&addr.to_string()]);
        assert!(matches!(http.run(&job(&format!("http://{addr}/"))).await, Err(ExecutorError::Transient(_))));
    }

    #[tokio::test]
    async fn refuses_bad_urls_and_inputs_deterministically() {
        let http = executor(&["127.0.0.1"]);
        let failure = |text: &str| Err(ExecutorError::Deterministic(text.into()));
        assert_eq!(http.run(&job("not a url")).await, failure("url \"not a url\" does not parse"));
        assert_eq!(http.run(&job("http://")).await, failure("url \"http://\" does not parse"));
        assert_eq!(http.run(&job("ftp://127.0.0.1/file")).await, failure("url scheme \"ftp\" is not http or https"));
        assert_eq!(http.run(&job("file:///etc/passwd")).await, failure("url scheme \"file\" is not http or https"));
        assert_eq!(http.run(b"\x01").await, failure("input is not a canonical CBOR map with text keys"));
        assert_eq!(
            http.run(&ArgsBuilder::new().bytes("url", b"http://127.0.0.1/").encode()).await,
            failure("input: argument \"url\" must be a text string")
        );
        assert_eq!(
            http.run(&ArgsBuilder::new().text("url", "http://127.0.0.1/").text("method", "POST").encode()).await,
            failure("input has an unknown key \"method\"; an http job takes url")
        );
    }

    #[test]
    fn parses_allowlist_entries() {
        let entry = |text: &str| AllowEntry::parse(text);
        let ok = |host: &str, port: Option<u16>| Ok(AllowEntry { host: host.to_owned(), port });
        assert_eq!(entry("Example.COM"), ok("example.com", None));
        assert_eq!(entry("example.com:8080"), ok("example.com", Some(8080)));
        assert_eq!(entry("127.0.0.1:80"), ok("127.0.0.1", Some(80)));
        assert_eq!(entry("[::1]"), ok("[::1]", None));
        assert_eq!(entry("[::1]:8080"), ok("[::1]", Some(8080)));
        for bad in ["", ":80", "::1", "host:", "host:99999", "host:x", "a/b", "user@host", "host?q", "a b"] {
            assert!(
                matches!(entry(bad), Err(ConfigError::InvalidAllowEntry { .. })),
                "{bad:?} should be refused, got {:?}",
                entry(bad)
            );
        }
        let allowed = entry("127.0.0.1:8080").unwrap();
        assert!(allowed.allows("127.0.0.1", 8080));
        assert!(!allowed.allows("127.0.0.1", 8081));
        assert!(entry("127.0.0.1").unwrap().allows("127.0.0.1", 1));
    }

    #[test]
    fn refuses_a_zero_timeout() {
        assert_eq!(HttpExecutor::new(&[], 0, 1).unwrap_err(), ConfigError::ZeroHttpTimeout);
    }
}
