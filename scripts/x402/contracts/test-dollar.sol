// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title TestDollar: the test token the x402 tests and `npm run dev:x402` pay with.
/// @notice An ERC-20 with EIP-3009 `transferWithAuthorization` under an EIP-712 domain whose name and version
/// are given at deployment (the x402 `exact` scheme signs against them, as it does against USDC's). Only the
/// deployer mints. It exists on local chains only: nothing here is meant for a real network.
contract TestDollar {
    string public name;
    string public version;
    string public constant symbol = "TUSD";
    uint8 public constant decimals = 6;
    uint256 public totalSupply;
    address public immutable minter;
    bytes32 public immutable DOMAIN_SEPARATOR;

    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    // secp256k1's order halved: a signature with a larger s is the malleable twin of another and is refused.
    uint256 private constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => mapping(bytes32 => bool)) public authorizationState;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);

    constructor(string memory domainName, string memory domainVersion) {
        name = domainName;
        version = domainVersion;
        minter = msg.sender;
        DOMAIN_SEPARATOR = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(domainName)),
                keccak256(bytes(domainVersion)),
                block.chainid,
                address(this)
            )
        );
    }

    /// @notice Creates `value` tokens for `to`; the deployer only.
    function mint(address to, uint256 value) external {
        require(msg.sender == minter, "TestDollar: caller is not the minter");
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "TestDollar: transfer amount exceeds allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
        return true;
    }

    /// @notice EIP-3009: moves `value` from `from` to `to` on `from`'s signature, once per (from, nonce).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _authorize(from, keccak256(abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)), validAfter, validBefore, nonce, Signature(v, r, s));
        _move(from, to, value);
    }

    /// @notice The same with the signature as 65 bytes (r, s, v), the form wallets return.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external {
        require(signature.length == 65, "TestDollar: invalid signature length");
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        _authorize(from, keccak256(abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce)), validAfter, validBefore, nonce, Signature(v, r, s));
        _move(from, to, value);
    }

    /// @dev A signature's parts, passed as one value to keep the authorizing functions within the stack.
    struct Signature {
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    function _authorize(
        address from,
        bytes32 structHash,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        Signature memory signature
    ) private {
        require(block.timestamp > validAfter, "TestDollar: authorization is not yet valid");
        require(block.timestamp < validBefore, "TestDollar: authorization is expired");
        require(!authorizationState[from][nonce], "TestDollar: authorization is used or canceled");
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR, structHash));
        require(uint256(signature.s) <= HALF_ORDER, "TestDollar: invalid signature");
        require(signature.v == 27 || signature.v == 28, "TestDollar: invalid signature");
        address signer = ecrecover(digest, signature.v, signature.r, signature.s);
        require(signer != address(0) && signer == from, "TestDollar: invalid signature");
        authorizationState[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
    }

    function _move(address from, address to, uint256 value) private {
        require(to != address(0), "TestDollar: transfer to the zero address");
        uint256 held = balanceOf[from];
        require(held >= value, "TestDollar: transfer amount exceeds balance");
        balanceOf[from] = held - value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
