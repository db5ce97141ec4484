// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FoundationXML
import LocationEngine
import OpenCoreLocation
import TestSupport
import Testing

/// Reading an app's `Info.plist`: the keys Apple's apps use, in XML or binary form, and a clear
/// refusal — never a crash — for anything else.
@Suite("The manifest reader")
struct ManifestTests {
    static func bytes(hex: String) -> Data {
        var data = Data()
        var digits = hex.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            data.append(UInt8(String([high, low]), radix: 16)!)
        }
        return data
    }

    @Test("examples/Info.plist is read; the same list in binary form is refused with how to convert it")
    func example() throws {
        let url = Fixtures.packageRoot.appendingPathComponent("examples/Info.plist")
        let xml = try Data(contentsOf: url)
        let manifest = try Manifest(propertyList: xml)
        #expect(manifest.whenInUseUsageDescription?.isEmpty == false)
        #expect(manifest.alwaysUsageDescription?.isEmpty == false)
        #expect(manifest.temporaryUsageDescriptions["Navigation"] != nil)
        let binary = try PropertyListEncoder.binary.encode(
            ["NSLocationWhenInUseUsageDescription": manifest.whenInUseUsageDescription!])
        do {
            _ = try Manifest(propertyList: binary, path: "/etc/app.plist")
            Issue.record("a binary list was read")
        } catch {
            #expect(error.reason.hasPrefix("it is a binary property list"), "\(error)")
            #expect(error.reason.contains("plistutil -i FILE -f xml"))
        }
    }

    @Test("examples/Info.plist is well-formed XML for a strict parser (no '--' inside a comment)")
    func strictXML() throws {
        let url = Fixtures.packageRoot.appendingPathComponent("examples/Info.plist")
        let parser = XMLParser(data: try Data(contentsOf: url))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    }

    // A binary property list whose only object is a set: Foundation's PropertyListSerialization
    // dies on it with SIGSEGV on Linux (found by tools/fuzz manifest). Then a dictionary holding
    // the manifest key with a set as its value. Then the fuzzer's second find, a list on which
    // PropertyListDecoder traps (a string running past the end).
    @Test(
        "Binary lists that crash Foundation's PropertyListSerialization are refused with a reason",
        arguments: [
            "62706c6973743030c1015161080a000000000000010100000000000000020000000000000000000000000000000c",
            "62706c6973743030d10201c1035f10234e534c6f636174696f6e5768656e496e55736555736167654465736372697074"
                + "696f6e5161080b0d33000000000000010100000000000000040000000000000000000000000000003" + "5",
            Data(
                base64Encoded:
                    "YnBsaXN0MDDWAQIDBAUGBwgJCQoNXxASQ0ZCdW5kbGVJZGVudGlmaWVyXxAsTlNMb2NhdGlvbkFsd2F5c0FuZFdoZW5JblVzZVVzYWdlRGVzY3JpcHRpb25fECBOU0xvY2F0aW9uRGVmYXVsdEFjY3VyYWN5UmVkdWNlZF8QJ05TTG9jYXRpb25SZXF1aXJlRXhwbGljaXRTZXJ2aWNlU2Vzc2lvbl8QLU5TTG9jYXRpb25UZW1wb3JhcnlVc2FnZURlc2NyaXB0aW9uRGljdGlvbmFyeV8QI05TTG9jYXRpb25XaGVuSW5Vc2VVc2FnZURlc2NyaXB0aW9uXxATY29tLmV4YW1wbGUudHJhY2tlcl8QR1JlY29yZHMgdGhlIHZlaGljbGUncyB0cmFjayB3aGlsZSBpdCBkcml2ZXMsIHdpdGggbm8gb25lIGF0IHRoZSBzY3JlZW4uCNELDFpOYXZpZ2FuM3RpbxBfVHVybi1ieS10dXJuIJyWjZJjdGlvbnMgbmVlZCB5b3VyIHByZWNpc2UgbG9jYXRpb24uXxAwU2hvd3Mgd2hlcmUgeW91IGFyZSBvbiB0aGUgbWFwIHdoaWxlIHlvdSB1c2UgaXQuAAgAFQAqAFkAfACmANYA/AESAVwBXQFgAWsBoQAAAAAAAAIBAAAAAAAAAA4AAAAAAAAAAAAAAAAAAAHU"
            )!.map { String(format: "%02x", $0) }.joined(),
        ])
    func crashingBinaryLists(hex: String) {
        do {
            _ = try Manifest(propertyList: Self.bytes(hex: hex), path: "/etc/app.plist")
            Issue.record("a set was read as a manifest")
        } catch {
            #expect(error.description.hasPrefix("cannot read the manifest /etc/app.plist: "), "\(error)")
        }
    }

    @Test(
        "A key of the wrong type is named, with what it must be",
        arguments: [
            (
                "<key>NSLocationWhenInUseUsageDescription</key><true/>",
                "NSLocationWhenInUseUsageDescription must be a string"
            ),
            (
                "<key>NSLocationDefaultAccuracyReduced</key><string>yes</string>",
                "NSLocationDefaultAccuracyReduced must be <true/> or <false/>"
            ),
            (
                "<key>NSLocationTemporaryUsageDescriptionDictionary</key><array/>",
                "NSLocationTemporaryUsageDescriptionDictionary must be a dictionary"
            ),
            (
                "<key>NSLocationTemporaryUsageDescriptionDictionary</key><dict><key>a</key><integer>1</integer></dict>",
                "NSLocationTemporaryUsageDescriptionDictionary must be a dictionary"
            ),
        ])
    func wrongTypes(entry: String, message: String) {
        let xml =
            #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>"# + entry + "</dict></plist>"
        do {
            _ = try Manifest(propertyList: Data(xml.utf8))
            Issue.record("read: \(entry)")
        } catch {
            #expect(error.reason.hasPrefix(message), "\(error.reason)")
        }
    }

    @Test("Not a property list, or not a dictionary at the top: the reason says which")
    func notAManifest() {
        #expect(throws: Manifest.LoadError.self) { try Manifest(propertyList: Data("hello".utf8)) }
        let array = #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><array/></plist>"#
        do {
            _ = try Manifest(propertyList: Data(array.utf8))
            Issue.record("an array was read as a manifest")
        } catch {
            #expect(error.reason == "the top level is not a dictionary")
        }
    }

    @Test("<integer>1</integer> for a flag is read as true, as Foundation's NSNumber bridging did")
    func integerFlag() throws {
        let xml =
            #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>NSLocationDefaultAccuracyReduced</key><integer>1</integer></dict></plist>"#
        #expect(try Manifest(propertyList: Data(xml.utf8)).defaultAccuracyReduced)
    }
}

extension PropertyListEncoder {
    static var binary: PropertyListEncoder {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return encoder
    }
}
