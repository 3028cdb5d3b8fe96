//! Counts every HTTP request an S3 disk sends, by ClickHouse's event
//! names, where it is sent: retries and list pages included, so the
//! figures are the requests the service saw.

use async_trait::async_trait;
use object_store::client::{
    ClientOptions, HttpClient, HttpConnector, HttpError, HttpRequest, HttpResponse, HttpService,
    ReqwestConnector,
};
use strata_common::events::{self, Event};

/// Makes HTTP clients that count their requests.
#[derive(Debug, Default)]
pub struct CountingConnector;

impl HttpConnector for CountingConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let inner = ReqwestConnector::default().connect(options)?;
        Ok(HttpClient::new(CountingService { inner }))
    }
}

#[derive(Debug)]
struct CountingService {
    inner: HttpClient,
}

#[async_trait]
impl HttpService for CountingService {
    async fn call(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let kind = classify(
            request.method().as_str(),
            request.uri().query().unwrap_or(""),
        );
        for event in kind.events() {
            events::add(*event, 1);
        }
        let response = self.inner.execute(request).await;
        let failed = match &response {
            Ok(answer) => !answer.status().is_success(),
            Err(_) => true,
        };
        if failed {
            let errors = if kind.is_read() {
                Event::S3ReadRequestsErrors
            } else {
                Event::S3WriteRequestsErrors
            };
            events::add(errors, 1);
        }
        response
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    GetObject,
    ListObjects,
    HeadObject,
    PutObject,
    CreateMultipartUpload,
    UploadPart,
    CompleteMultipartUpload,
    AbortMultipartUpload,
    DeleteObjects,
    Other,
}

impl Request {
    fn events(self) -> &'static [Event] {
        match self {
            Request::GetObject => &[Event::S3GetObject, Event::DiskS3GetObject],
            Request::ListObjects => &[Event::S3ListObjects],
            Request::HeadObject => &[Event::S3HeadObject],
            Request::PutObject => &[Event::S3PutObject, Event::DiskS3PutObject],
            Request::CreateMultipartUpload => &[Event::S3CreateMultipartUpload],
            Request::UploadPart => &[Event::S3UploadPart],
            Request::CompleteMultipartUpload => &[Event::S3CompleteMultipartUpload],
            Request::AbortMultipartUpload => &[Event::S3AbortMultipartUpload],
            Request::DeleteObjects => &[Event::S3DeleteObjects],
            Request::Other => &[],
        }
    }

    fn is_read(self) -> bool {
        matches!(
            self,
            Request::GetObject | Request::ListObjects | Request::HeadObject
        )
    }
}

/// The S3 operation a request is, from its method and query string.
fn classify(method: &str, query: &str) -> Request {
    let has = |name: &str| {
        query
            .split('&')
            .any(|pair| pair.split('=').next() == Some(name))
    };
    match method {
        "GET" if has("list-type") || has("prefix") || has("delimiter") => Request::ListObjects,
        "GET" => Request::GetObject,
        "HEAD" => Request::HeadObject,
        "PUT" if has("uploadId") => Request::UploadPart,
        "PUT" => Request::PutObject,
        "POST" if has("uploads") => Request::CreateMultipartUpload,
        "POST" if has("uploadId") => Request::CompleteMultipartUpload,
        "POST" if has("delete") => Request::DeleteObjects,
        "DELETE" if has("uploadId") => Request::AbortMultipartUpload,
        "DELETE" => Request::DeleteObjects,
        _ => Request::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_told_apart_by_method_and_query() {
        assert_eq!(classify("GET", ""), Request::GetObject);
        assert_eq!(
            classify("GET", "list-type=2&prefix=a%2F"),
            Request::ListObjects
        );
        assert_eq!(classify("PUT", ""), Request::PutObject);
        assert_eq!(
            classify("PUT", "partNumber=1&uploadId=x"),
            Request::UploadPart
        );
        assert_eq!(classify("POST", "uploads"), Request::CreateMultipartUpload);
        assert_eq!(
            classify("POST", "uploadId=x"),
            Request::CompleteMultipartUpload
        );
        assert_eq!(classify("POST", "delete"), Request::DeleteObjects);
        assert_eq!(
            classify("DELETE", "uploadId=x"),
            Request::AbortMultipartUpload
        );
        assert_eq!(classify("DELETE", ""), Request::DeleteObjects);
        assert_eq!(classify("HEAD", ""), Request::HeadObject);
    }
}
