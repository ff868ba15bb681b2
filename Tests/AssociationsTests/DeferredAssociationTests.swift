import Associations
import Testing

/// A daemon reads association files at start and compiles each one when first needed: the decision
/// must be the same as with files compiled up front, and a malformed file must name no app.
@Suite struct DeferredAssociationTests {
    let shop = #"{"applinks": {"details": [{"appIDs": ["org.example.Shop"], "components": [{"/": "/product/*"}]}]}}"#

    @Test func aDeferredFileDecidesAsACompiledOne() throws {
        let claims = ["org.example.Shop": [try DomainClaim("shop.example")]]
        let compiled = LinkOwnership(userRules: [], associations: ["shop.example": try AssociationFile(json: Array(shop.utf8))], claims: claims)
        let deferred = LinkOwnership(
            userRules: [], deferredAssociations: ["shop.example": DeferredAssociation(bytes: Array(shop.utf8), source: "shop.example.json")],
            claims: claims)
        for url in ["https://shop.example/product/1", "https://shop.example/cart"] {
            #expect(deferred.decide(url: url) == compiled.decide(url: url))
        }
        guard case .app(let id, _) = deferred.decide(url: "https://shop.example/product/1") else {
            Issue.record("the deferred file gave the link to nobody")
            return
        }
        #expect(id == "org.example.Shop")
    }

    @Test func aMalformedDeferredFileNamesNoAppAndSaysWhy() throws {
        let broken = DeferredAssociation(bytes: Array(#"{"applinks": {"details": [{"appIDs": "org.example.Shop"}]}}"#.utf8), source: "x.json")
        guard case .failure(let error) = broken.compile() else {
            Issue.record("a malformed file compiled")
            return
        }
        #expect(error.path.hasPrefix("$.applinks.details[0]"), "\(error)")
        let ownership = LinkOwnership(
            userRules: [], deferredAssociations: ["shop.example": broken], claims: ["org.example.Shop": [try DomainClaim("shop.example")]])
        guard case .browser = ownership.decide(url: "https://shop.example/product/1") else {
            Issue.record("a malformed association gave the link to an app")
            return
        }
    }
}
