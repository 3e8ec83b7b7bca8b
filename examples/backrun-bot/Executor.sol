// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IWETH {
    function deposit() external payable;
    function withdraw(uint256) external;
    function balanceOf(address) external view returns (uint256);
    function approve(address, uint256) external returns (bool);
}

/// The usual searcher setup: a contract that holds the bot's WETH, runs a round trip's swaps
/// in one tx, and pays the block's builder a share of the WETH it gained by a direct
/// transfer to block.coinbase (no priority fee needed). Its owner (who deployed it, or for
/// whom a factory made it) and the operators it names may run it: many searchers keep the
/// owner key cold and send from several hot keys.
contract Executor {
    address public immutable owner;
    IWETH public immutable weth;
    mapping(address => bool) public isOperator;

    /// The round trip gained nothing: nothing to pay, the whole tx reverts.
    error NoProfit(uint256 before, uint256 afterwards);

    constructor(IWETH weth_, address owner_, address[] memory operators) payable {
        owner = owner_;
        weth = weth_;
        isOperator[owner_] = true;
        for (uint256 i = 0; i < operators.length; i++) isOperator[operators[i]] = true;
        if (msg.value > 0) weth_.deposit{value: msg.value}();
    }

    receive() external payable {}

    modifier onlyOperator() {
        require(isOperator[msg.sender], "not an operator");
        _;
    }

    function approve(address token, address spender) external onlyOperator {
        IWETH(token).approve(spender, type(uint256).max);
    }

    /// Runs `calls` on `targets` in order, then pays the coinbase `builderShareBps` of the WETH gained.
    function run(address[] calldata targets, bytes[] calldata calls, uint256 builderShareBps) external onlyOperator {
        uint256 before = weth.balanceOf(address(this));
        for (uint256 i = 0; i < targets.length; i++) {
            (bool ok, bytes memory data) = targets[i].call(calls[i]);
            if (!ok) {
                assembly {
                    revert(add(data, 32), mload(data))
                }
            }
        }
        uint256 afterwards = weth.balanceOf(address(this));
        if (afterwards <= before) revert NoProfit(before, afterwards);
        uint256 payment = ((afterwards - before) * builderShareBps) / 10_000;
        weth.withdraw(payment);
        block.coinbase.transfer(payment);
    }
}

/// Makes executors at addresses known before they exist (CREATE2), for the caller.
contract ExecutorFactory {
    function deploy(bytes32 salt, IWETH weth_, address[] calldata operators) external payable returns (Executor) {
        return new Executor{salt: salt, value: msg.value}(weth_, msg.sender, operators);
    }
}
