// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// A Chainlink price feed's aggregator as mainnet's feeds run it: Chainlink's Off-Chain Reporting
/// (OCR) aggregator, whose transmitter posts each round's report in a public `transmit` tx. The
/// report's layout, the signature check and the events are libocr's `OffchainAggregator.sol`
/// (github.com/smartcontractkit/libocr, contract/OffchainAggregator.sol): `report` is
/// `abi.encode(bytes32 rawReportContext, bytes32 rawObservers, int192[] observations)`, the
/// observations sorted, the answer their median, signed by f + 1 of the configured oracles over
/// `keccak256(report)`. No npm package ships its bytecode, so bundlesim compiles this one; the
/// billing, the payees and the config's on-chain proposal are left out (docs/lending.md).
/// Placed by bundlesim with `anvil_setCode`, then `initialize`d once.
contract OffchainAggregator {
    struct Transmission {
        int192 answer;
        uint64 timestamp;
    }

    address public owner;
    uint8 public decimals;
    string public description;
    int192 public minAnswer;
    int192 public maxAnswer;
    uint8 public f;
    bytes16 public latestConfigDigest;
    /// epoch (32 bits) << 8 | round (8 bits) of the last report taken: a report must be newer.
    uint40 internal latestEpochAndRound;
    uint32 internal latestAggregatorRoundId;
    mapping(uint32 => Transmission) internal transmissions;
    mapping(address => bool) public isSigner;
    mapping(address => bool) public isTransmitter;
    address[] internal signers;
    address[] internal transmitters;

    event NewTransmission(uint32 indexed aggregatorRoundId, int192 answer, address transmitter, int192[] observations, bytes observers, bytes32 rawReportContext);
    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);
    event NewRound(uint256 indexed roundId, address indexed startedBy, uint256 startedAt);
    event ConfigSet(uint32 previousConfigBlockNumber, uint64 configCount, address[] signers, address[] transmitters, uint8 threshold, uint64 encodedConfigVersion, bytes encoded);

    /// The feed's settings, once: who signs and who transmits, f, the answer's bounds and units.
    function initialize(uint8 _decimals, string calldata _description, int192 _minAnswer, int192 _maxAnswer, address[] calldata _signers, address[] calldata _transmitters, uint8 _f, bytes16 _configDigest) external {
        require(owner == address(0), "already initialized");
        require(_signers.length == _transmitters.length && _signers.length > 3 * uint256(_f), "faulty-oracle threshold too high");
        owner = msg.sender;
        decimals = _decimals;
        description = _description;
        minAnswer = _minAnswer;
        maxAnswer = _maxAnswer;
        f = _f;
        latestConfigDigest = _configDigest;
        for (uint256 i = 0; i < _signers.length; i++) {
            require(!isSigner[_signers[i]] && !isTransmitter[_transmitters[i]], "repeated address");
            isSigner[_signers[i]] = true;
            isTransmitter[_transmitters[i]] = true;
        }
        signers = _signers;
        transmitters = _transmitters;
        emit ConfigSet(0, 1, _signers, _transmitters, _f, 1, "");
    }

    /// A round's report, posted by one of the transmitters (libocr's `transmit`, selector 0xc9807539).
    function transmit(bytes calldata _report, bytes32[] calldata _rs, bytes32[] calldata _ss, bytes32 _rawVs) external {
        require(isTransmitter[msg.sender], "unauthorized transmitter");
        (bytes32 rawReportContext, bytes32 rawObservers, int192[] memory observations) = abi.decode(_report, (bytes32, bytes32, int192[]));
        require(bytes16(rawReportContext << 88) == latestConfigDigest, "configDigest mismatch");
        uint40 epochAndRound = uint40(uint256(rawReportContext));
        require(latestEpochAndRound < epochAndRound, "stale report");
        require(_rs.length == uint256(f) + 1 && _ss.length == _rs.length, "wrong number of signatures");
        require(observations.length > 2 * uint256(f) && observations.length <= signers.length, "wrong number of observations");
        bytes32 h = keccak256(_report);
        address[] memory seen = new address[](_rs.length);
        for (uint256 i = 0; i < _rs.length; i++) {
            address signer = ecrecover(h, uint8(_rawVs[i]) + 27, _rs[i], _ss[i]);
            require(isSigner[signer], "address not authorized to sign");
            for (uint256 j = 0; j < i; j++) require(seen[j] != signer, "non-unique signature");
            seen[i] = signer;
        }
        for (uint256 i = 1; i < observations.length; i++) require(observations[i - 1] <= observations[i], "observations not sorted");
        int192 median = observations[observations.length / 2];
        require(minAnswer <= median && median <= maxAnswer, "median is out of min-max range");
        latestEpochAndRound = epochAndRound;
        uint32 roundId = ++latestAggregatorRoundId;
        transmissions[roundId] = Transmission(median, uint64(block.timestamp));
        bytes memory observers = new bytes(observations.length);
        for (uint256 i = 0; i < observations.length; i++) observers[i] = rawObservers[i];
        emit NewTransmission(roundId, median, msg.sender, observations, observers, rawReportContext);
        emit NewRound(roundId, address(0), block.timestamp);
        emit AnswerUpdated(median, roundId, block.timestamp);
    }

    function version() external pure returns (uint256) {
        return 4;
    }

    function typeAndVersion() external pure returns (string memory) {
        return "AccessControlledOffchainAggregator 4.0.0";
    }

    function getSigners() external view returns (address[] memory) {
        return signers;
    }

    function getTransmitters() external view returns (address[] memory) {
        return transmitters;
    }

    /// What a transmitter reads before its next report (libocr's `latestTransmissionDetails`).
    function latestTransmissionDetails() external view returns (bytes16 configDigest, uint32 epoch, uint8 round, int192 latestAnswer_, uint64 latestTimestamp_) {
        Transmission memory t = transmissions[latestAggregatorRoundId];
        return (latestConfigDigest, uint32(latestEpochAndRound >> 8), uint8(latestEpochAndRound), t.answer, t.timestamp);
    }

    function latestAnswer() external view returns (int256) {
        return transmissions[latestAggregatorRoundId].answer;
    }

    function latestTimestamp() external view returns (uint256) {
        return transmissions[latestAggregatorRoundId].timestamp;
    }

    function latestRound() external view returns (uint256) {
        return latestAggregatorRoundId;
    }

    function getAnswer(uint256 _roundId) external view returns (int256) {
        if (_roundId > 0xFFFFFFFF) return 0;
        return transmissions[uint32(_roundId)].answer;
    }

    function getTimestamp(uint256 _roundId) external view returns (uint256) {
        if (_roundId > 0xFFFFFFFF) return 0;
        return transmissions[uint32(_roundId)].timestamp;
    }

    function getRoundData(uint80 _roundId) public view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) {
        require(_roundId <= 0xFFFFFFFF, "No data present");
        Transmission memory t = transmissions[uint32(_roundId)];
        require(t.timestamp != 0, "No data present");
        return (_roundId, t.answer, t.timestamp, t.timestamp, _roundId);
    }

    function latestRoundData() external view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) {
        return getRoundData(latestAggregatorRoundId);
    }
}

interface IAggregator {
    function decimals() external view returns (uint8);
    function description() external view returns (string memory);
    function version() external view returns (uint256);
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
    function getRoundData(uint80) external view returns (uint80, int256, uint256, uint256, uint80);
    function latestAnswer() external view returns (int256);
    function latestTimestamp() external view returns (uint256);
    function latestRound() external view returns (uint256);
    function getAnswer(uint256) external view returns (int256);
    function getTimestamp(uint256) external view returns (uint256);
}

/// A feed's proxy as mainnet's are (Chainlink's `EACAggregatorProxy`, v0.6, the address
/// consumers such as Aave's oracle read): every read forwarded to the current aggregator, round
/// ids carrying the phase in their top bits (`phaseId << 64 | aggregatorRoundId`), no access
/// control (`accessController` is zero, as on mainnet's public feeds). Placed with
/// `anvil_setCode`, then `initialize`d with its aggregator (phase 1).
contract FeedProxy {
    uint256 private constant PHASE_OFFSET = 64;
    address public owner;
    uint16 public phaseId;
    mapping(uint16 => IAggregator) public phaseAggregators;

    function initialize(IAggregator _aggregator) external {
        require(owner == address(0), "already initialized");
        owner = msg.sender;
        phaseId = 1;
        phaseAggregators[1] = _aggregator;
    }

    function aggregator() external view returns (address) {
        return address(phaseAggregators[phaseId]);
    }

    function accessController() external pure returns (address) {
        return address(0);
    }

    function proposedAggregator() external pure returns (address) {
        return address(0);
    }

    function decimals() external view returns (uint8) {
        return phaseAggregators[phaseId].decimals();
    }

    function description() external view returns (string memory) {
        return phaseAggregators[phaseId].description();
    }

    function version() external view returns (uint256) {
        return phaseAggregators[phaseId].version();
    }

    function latestAnswer() external view returns (int256) {
        return phaseAggregators[phaseId].latestAnswer();
    }

    function latestTimestamp() external view returns (uint256) {
        return phaseAggregators[phaseId].latestTimestamp();
    }

    function latestRound() external view returns (uint256) {
        return (uint256(phaseId) << PHASE_OFFSET) | phaseAggregators[phaseId].latestRound();
    }

    function getAnswer(uint256 _roundId) external view returns (int256) {
        (uint16 phase, uint64 aggregatorRoundId) = parseIds(_roundId);
        IAggregator a = phaseAggregators[phase];
        if (address(a) == address(0)) return 0;
        return a.getAnswer(aggregatorRoundId);
    }

    function getTimestamp(uint256 _roundId) external view returns (uint256) {
        (uint16 phase, uint64 aggregatorRoundId) = parseIds(_roundId);
        IAggregator a = phaseAggregators[phase];
        if (address(a) == address(0)) return 0;
        return a.getTimestamp(aggregatorRoundId);
    }

    function latestRoundData() external view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) {
        uint16 current = phaseId;
        (uint80 r, int256 a, uint256 s, uint256 u, uint80 ar) = phaseAggregators[current].latestRoundData();
        return (addPhase(current, r), a, s, u, addPhase(current, ar));
    }

    function getRoundData(uint80 _roundId) external view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) {
        (uint16 phase, uint64 aggregatorRoundId) = parseIds(_roundId);
        (uint80 r, int256 a, uint256 s, uint256 u, uint80 ar) = phaseAggregators[phase].getRoundData(aggregatorRoundId);
        return (addPhase(phase, r), a, s, u, addPhase(phase, ar));
    }

    function proxyAggregator(uint256) external pure returns (address) {
        return address(0);
    }

    function addPhase(uint16 _phase, uint80 _originalId) internal pure returns (uint80) {
        return uint80((uint256(_phase) << PHASE_OFFSET) | _originalId);
    }

    function parseIds(uint256 _roundId) internal pure returns (uint16, uint64) {
        return (uint16(_roundId >> PHASE_OFFSET), uint64(_roundId));
    }
}
