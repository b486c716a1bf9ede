import Crypto
import Foundation
import NotifierService
import SousCrypto
import Testing

/// The push encryption against RFC 8291's worked example (Appendix A), byte for byte.
struct WebPushTests {
    @Test func encryptionReproducesTheExampleOfRFC8291() throws {
        let body = try WebPush.encrypt(
            Array("When I grow up, I want to be a watermelon".utf8),
            p256dh: try #require(Base64URL.decode("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")),
            auth: try #require(Base64URL.decode("BTBZMqHH6r4Tts7J_aSIgg")), salt: try #require(Base64URL.decode("DGv6ra1nlYgDCS1FRnbzlw")),
            senderKey: try P256.KeyAgreement.PrivateKey(
                rawRepresentation: try #require(Base64URL.decode("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))))
        #expect(
            Base64URL.encode(body)
                == "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        )
    }

    @Test func keysThatAreNotASubscriptionsAreRefused() {
        #expect(throws: WebPush.KeyError.self) {
            try WebPush.encrypt([1], p256dh: [4] + [UInt8](repeating: 7, count: 64), auth: [UInt8](repeating: 0, count: 16))
        }
        let key = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
        #expect(throws: WebPush.KeyError.self) { try WebPush.encrypt([1], p256dh: [UInt8](key), auth: [1, 2, 3]) }
    }

    @Test func theVAPIDTokenNamesTheEndpointsOriginAndVerifiesWithThePublishedKey() throws {
        let key = P256.Signing.PrivateKey()
        let header = try WebPush.authorization(
            endpoint: try #require(URL(string: "https://push.example.net:8443/send/abc?x=1")), key: key, subject: "mailto:ops@example.org",
            expiry: Date(timeIntervalSince1970: 1_900_000_000))
        let parts = header.dropFirst("vapid t=".count).components(separatedBy: ", k=")
        let token = parts[0].split(separator: ".").map(String.init)
        #expect(parts[1] == WebPush.publicKey(of: key))
        let claims = try JSONSerialization.jsonObject(with: Data(try #require(Base64URL.decode(token[1])))) as? [String: Any]
        #expect(claims?["aud"] as? String == "https://push.example.net:8443")
        #expect(claims?["exp"] as? Int == 1_900_000_000)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(token[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Array("\(token[0]).\(token[1])".utf8)))
    }
}
