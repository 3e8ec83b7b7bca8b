// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

interface IWETH {
    function withdraw(uint256) external;
    function balanceOf(address) external view returns (uint256);
}

/// The executor contract of an emulated rival searcher, as mainnet searchers use one: it holds
/// the searcher's WETH, runs a route's swaps in one tx (so a MEV-Share backrun is one signed tx),
/// and pays the block's builder by a transfer to block.coinbase; a sandwicher's frontrun and
/// backrun are `trade` and `settle`, a CEX-DEX arbitrageur's trade `rebalance`. Only the searcher's operators
/// (storage slot 0: a mapping of allowed callers) may call it. Placed by bundlesim with
/// `anvil_setCode`, not deployed: WETH's address is a constant.
contract RivalExecutor {
    IWETH constant WETH = IWETH(0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2);
    mapping(address => bool) public operators;

    /// The route gained less than the payment it promised: nothing is paid, nothing traded.
    error NotProfitable(uint256 gained, uint256 payment);

    receive() external payable {}

    /// Runs `calls` on `targets` in order, then pays the coinbase `payment` wei out of the WETH gained.
    function run(address[] calldata targets, bytes[] calldata calls, uint256 payment) external {
        require(operators[msg.sender], "not an operator");
        uint256 before = WETH.balanceOf(address(this));
        _call(targets, calls);
        _pay(before, payment);
    }

    /// A sandwich's first half: runs `calls`, checks nothing (the second half, `settle`, does).
    function trade(address[] calldata targets, bytes[] calldata calls) external {
        require(operators[msg.sender], "not an operator");
        _call(targets, calls);
    }

    /// A sandwich's second half: runs `calls`, then pays the coinbase `payment` wei if they
    /// brought in more WETH than `cost` (what the first half spent) by more than that. Judged on
    /// this tx alone, so another trade of the executor in the same block cannot pay for it.
    function settle(address[] calldata targets, bytes[] calldata calls, uint256 payment, uint256 cost) external {
        require(operators[msg.sender], "not an operator");
        uint256 before = WETH.balanceOf(address(this));
        _call(targets, calls);
        _pay(before + cost, payment);
    }

    /// A CEX-DEX trade: runs `calls` out of the executor's inventory (its other leg is on the
    /// exchange, so no WETH gain is asked: each call's own minimum output guards it) and pays
    /// the coinbase `payment` wei out of its WETH.
    function rebalance(address[] calldata targets, bytes[] calldata calls, uint256 payment) external {
        require(operators[msg.sender], "not an operator");
        _call(targets, calls);
        if (payment > 0) {
            WETH.withdraw(payment);
            block.coinbase.transfer(payment);
        }
    }

    function _call(address[] calldata targets, bytes[] calldata calls) private {
        for (uint256 i = 0; i < targets.length; i++) {
            (bool ok, bytes memory data) = targets[i].call(calls[i]);
            if (!ok) {
                assembly {
                    revert(add(data, 32), mload(data))
                }
            }
        }
    }

    function _pay(uint256 before, uint256 payment) private {
        uint256 afterwards = WETH.balanceOf(address(this));
        uint256 gained = afterwards > before ? afterwards - before : 0;
        if (gained <= payment) revert NotProfitable(gained, payment);
        if (payment > 0) {
            WETH.withdraw(payment);
            block.coinbase.transfer(payment);
        }
    }
}
