// SPDX-FileCopyrightText: 2026 The OpenCoreLocation Authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import FoundationEssentials

/// The key that reads a journal, and the one that a recorder seals to.
public typealias JournalPrivateKey = Curve25519.KeyAgreement.PrivateKey
public typealias JournalPublicKey = Curve25519.KeyAgreement.PublicKey

/// The journal's keys: an X25519 pair whose private half stays with whoever reads the journals
/// (a fleet's backend, an owner's laptop), never on the box that records them. Each is a text
/// file of one line: `ocl-journal-public-x25519 BASE64` or `ocl-journal-private-x25519 BASE64`.
public enum JournalKeys {
    static let publicTag = "ocl-journal-public-x25519"
    static let privateTag = "ocl-journal-private-x25519"

    /// A new pair, as the two files' contents.
    public static func generate() -> (privateKey: String, publicKey: String) {
        let key = Curve25519.KeyAgreement.PrivateKey()
        return (
            "\(privateTag) \(Data(key.rawRepresentation).base64EncodedString())\n",
            "\(publicTag) \(Data(key.publicKey.rawRepresentation).base64EncodedString())\n"
        )
    }

    /// The private key in the file at `path`; the error says why it is not one.
    public static func privateKey(contentsOf path: String) throws(JournalError) -> JournalPrivateKey {
        try privateKey(text(of: path), path: path)
    }

    /// The public key in the file at `path`; the error says why it is not one.
    public static func publicKey(contentsOf path: String) throws(JournalError) -> JournalPublicKey {
        try publicKey(text(of: path), path: path)
    }

    private static func text(of path: String) throws(JournalError) -> String {
        do {
            return String(decoding: try JournalWriter.read(path), as: UTF8.self)
        } catch {
            throw JournalError("\(path) cannot be read (\(error)); `gpsloc journal keygen` makes a key pair")
        }
    }

    /// A public key from its file's text; the error says what the file holds instead.
    public static func publicKey(_ text: String, path: String) throws(JournalError)
        -> Curve25519.KeyAgreement.PublicKey
    {
        let raw = try value(text, tag: publicTag, path: path)
        guard let key = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw) else {
            throw JournalError("\(path) does not hold a 32-byte X25519 public key")
        }
        return key
    }

    public static func privateKey(_ text: String, path: String) throws(JournalError)
        -> Curve25519.KeyAgreement.PrivateKey
    {
        let raw = try value(text, tag: privateTag, path: path)
        guard let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw) else {
            throw JournalError("\(path) does not hold a 32-byte X25519 private key")
        }
        return key
    }

    private static func value(_ text: String, tag: String, path: String) throws(JournalError) -> Data {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, fields[0] == tag, let raw = Data(base64Encoded: String(fields[1])) else {
            let other = tag == publicTag ? privateTag : publicTag
            if fields.first.map(String.init) == other {
                throw JournalError(
                    "\(path) is a \(other == privateTag ? "private" : "public") key; give the "
                        + "\(tag == publicTag ? "public" : "private") one (`gpsloc journal keygen` writes both)"
                )
            }
            throw JournalError(
                "\(path) is not a journal key file (`\(tag) BASE64`); `gpsloc journal keygen` makes one")
        }
        return raw
    }
}

/// Seals one segment's records to the recipient: made with the segment's header, which it
/// completes with HPKE's encapsulated key.
public struct JournalSealer {
    public let header: JournalHeader
    private let headerBytes: [UInt8]
    private let key: SymmetricKey

    /// The sealer of segment `segment` of the journal `journal` (its identity), made at `created`.
    public init(
        recipient: Curve25519.KeyAgreement.PublicKey, journal: [UInt8], segment: UInt64, created: Int64
    ) throws(JournalError) {
        var header = JournalHeader(
            segment: segment, created: created, keyID: JournalFormat.keyID(recipient), journal: journal,
            encapsulatedKey: [UInt8](repeating: 0, count: 32))
        do {
            let sender = try HPKE.Sender(
                recipientKey: recipient, ciphersuite: JournalFormat.ciphersuite, info: Data(header.info))
            header.encapsulatedKey = Array(sender.encapsulatedKey)
            key = try sender.exportSecret(context: JournalFormat.exportContext, outputByteCount: 32)
        } catch {
            throw JournalError("cannot make the segment's key: \(error)")
        }
        self.header = header
        headerBytes = header.bytes
    }

    /// Record `counter`'s frame: length, CRC-32, then the record sealed.
    public func frame(_ record: JournalRecord, counter: UInt64) throws(JournalError) -> [UInt8] {
        let sealed: ChaChaPoly.SealedBox
        do {
            sealed = try ChaChaPoly.seal(
                record.bytes, using: key, nonce: JournalFormat.nonce(counter), authenticating: headerBytes)
        } catch {
            throw JournalError("cannot seal a record: \(error)")
        }
        // One array: the frame's 8 bytes, then the sealed bytes, checksummed where they lie.
        let length = sealed.ciphertext.count + JournalFormat.tagSize
        var out: [UInt8] = []
        out.reserveCapacity(JournalFormat.frameSize + length)
        out.appendLittleEndian(UInt32(length))
        out.appendLittleEndian(UInt32(0))
        sealed.ciphertext.withUnsafeBytes { out.append(contentsOf: $0) }
        sealed.tag.withUnsafeBytes { out.append(contentsOf: $0) }
        let crc = JournalFormat.crc32(out[JournalFormat.frameSize...])
        for index in 0..<4 { out[4 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
        return out
    }
}

/// Opens one segment's records with the recipient's private key.
public struct JournalOpener {
    private let headerBytes: [UInt8]
    private let key: SymmetricKey

    public init(privateKey: Curve25519.KeyAgreement.PrivateKey, header: JournalHeader) throws(JournalError) {
        guard JournalFormat.keyID(privateKey.publicKey) == header.keyID else {
            throw JournalError("segment \(header.segment) is sealed to another key")
        }
        do {
            let recipient = try HPKE.Recipient(
                privateKey: privateKey, ciphersuite: JournalFormat.ciphersuite, info: Data(header.info),
                encapsulatedKey: Data(header.encapsulatedKey))
            key = try recipient.exportSecret(context: JournalFormat.exportContext, outputByteCount: 32)
        } catch {
            throw JournalError("segment \(header.segment)'s key cannot be opened: \(error)")
        }
        headerBytes = header.bytes
    }

    /// Record `counter`, if its sealed bytes are authentic and it is that record of this segment.
    public func open(_ sealed: ArraySlice<UInt8>, counter: UInt64) -> JournalRecord? {
        guard sealed.count >= JournalFormat.tagSize else { return nil }
        let split = sealed.endIndex - JournalFormat.tagSize
        guard
            let box = try? ChaChaPoly.SealedBox(
                nonce: JournalFormat.nonce(counter), ciphertext: sealed[sealed.startIndex..<split],
                tag: sealed[split...]),
            let plain = try? ChaChaPoly.open(box, using: key, authenticating: headerBytes)
        else { return nil }
        return JournalRecord(Array(plain))
    }
}

/// A journal that cannot be written or read as asked, in words for its reader.
public struct JournalError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
