// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A toy constant-product pool of ETH and an internal token: just enough for a price impact.
contract Pool {
    uint256 public reserveEth;
    uint256 public reserveToken;
    mapping(address => uint256) public tokenBalance;

    event Swap(address indexed trader, bool ethIn, uint256 amountIn, uint256 amountOut);

    constructor(uint256 tokenReserve) payable {
        reserveEth = msg.value;
        reserveToken = tokenReserve;
    }

    /// Buys tokens with the ETH sent; reverts below `minOut`.
    function buyTokens(uint256 minOut) external payable returns (uint256 out) {
        out = (msg.value * reserveToken) / (reserveEth + msg.value);
        require(out >= minOut, "slippage");
        reserveEth += msg.value;
        reserveToken -= out;
        tokenBalance[msg.sender] += out;
        emit Swap(msg.sender, true, msg.value, out);
    }

    /// Sells tokens for ETH; reverts below `minOut`.
    function sellTokens(uint256 amount, uint256 minOut) external returns (uint256 out) {
        tokenBalance[msg.sender] -= amount;
        out = (amount * reserveEth) / (reserveToken + amount);
        require(out >= minOut, "slippage");
        reserveToken += amount;
        reserveEth -= out;
        payable(msg.sender).transfer(out);
        emit Swap(msg.sender, false, amount, out);
    }
}

/// The searcher's contract: holds tokens bought at deployment, sells them after a victim's
/// buy has raised the price, and pays the builder a share of the profit via the coinbase.
contract Backrunner {
    Pool public immutable pool;
    address public immutable owner;
    uint256 public immutable cost;
    uint256 public immutable tokens;

    event Backrun(uint256 profit, uint256 builderTip);

    constructor(Pool p) payable {
        pool = p;
        owner = msg.sender;
        cost = msg.value;
        tokens = p.buyTokens{value: msg.value}(0);
    }

    receive() external payable {}

    /// Sells every token; reverts unless it sells for more than it cost.
    function backrun(uint256 builderBps) external {
        require(msg.sender == owner, "only owner");
        uint256 out = pool.sellTokens(tokens, 0);
        require(out > cost, "no profit");
        uint256 tip = ((out - cost) * builderBps) / 10_000;
        block.coinbase.transfer(tip);
        payable(owner).transfer(out - tip);
        emit Backrun(out - cost, tip);
    }
}
