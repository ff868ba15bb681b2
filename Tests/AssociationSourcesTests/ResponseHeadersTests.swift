@testable import AssociationSources
import Testing

@Suite struct ResponseHeadersTests {
    private func headers(_ lines: String...) -> ResponseHeaders { ResponseHeaders(lines: lines.map { $0 + "\r\n" }) }

    @Test func contentTypeMustBeApplicationJSONWithAnyParameters() {
        #expect(headers("Content-Type: application/json").isJSON)
        #expect(headers("content-type:Application/JSON; charset=utf-8").isJSON)
        #expect(headers("Content-Type: application/json ;charset=\"utf-8\"").isJSON)
        #expect(!headers("Content-Type: text/html; charset=utf-8").isJSON)
        #expect(!headers("Content-Type: application/jsonx").isJSON)
        #expect(!headers("Content-Type: application/pkcs7-mime").isJSON)
        #expect(!headers("Content-Length: 2").isJSON)
        #expect(headers("Content-Length: 2").contentType == nil)
        #expect(headers("Content-Type: text/html; charset=utf-8").contentType == "text/html; charset=utf-8")
    }

    @Test func maxAgeIsTheSmallestOfAllCacheControlFields() {
        #expect(headers("Cache-Control: max-age=3600").maxAge == 3600)
        #expect(headers("Cache-Control: public, MAX-AGE = \"7200\" , must-revalidate").maxAge == 7200)
        #expect(headers("Cache-Control: max-age=86400", "cache-control: max-age=60").maxAge == 60)
        #expect(headers("Cache-Control: s-maxage=60, max-age=600").maxAge == 600)
        #expect(headers("Cache-Control: no-cache").maxAge == 0)
        #expect(headers("Cache-Control: max-age=600, no-store").maxAge == 0)
        #expect(headers("Cache-Control: max-age=99999999999999999999").maxAge == 1 << 31)
    }

    @Test func cacheControlWithoutAnAgeSaysNothing() {
        #expect(headers("Content-Type: application/json").maxAge == nil)
        #expect(headers("Cache-Control: public").maxAge == nil)
        #expect(headers("Cache-Control: max-age=").maxAge == nil)
        #expect(headers("Cache-Control: max-age=-5").maxAge == nil)
        #expect(headers("Cache-Control: max-age=1h").maxAge == nil)
    }

    @Test func anInterimResponseIsForgottenAtTheNextStatusLine() {
        let received = headers("HTTP/1.1 100 Continue", "Content-Type: text/plain", "", "HTTP/1.1 200 OK", "Content-Type: application/json", "")
        #expect(received.isJSON)
        #expect(received.values(of: "content-type") == ["application/json"])
    }
}
